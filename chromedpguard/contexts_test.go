package chromedpguard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestPoliciesInEveryContext holds that the download and permission
// policies hold in incognito browser contexts as in the default one,
// headless and headed: in a context that existed when the watcher started
// and in one created after, a download is saved into Options.DownloadDir,
// or denied without it, and never written into the user's Downloads
// folder; a permission the Options grant is granted, and one they do not
// is denied at once.
func TestPoliciesInEveryContext(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"headless", "headed"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "headed" {
				// Headed Chrome takes the same calls: what it does with
				// them is held on rod's headed row.
				faultrows.EngineRow(t)
			}
			t.Parallel()
			var browser context.Context
			var home string
			if mode == "headed" {
				b := dedicatedHeaded(t)
				browser, home = b.ctx, b.home
			} else {
				// A home of the browser's own: other rows' browsers may
				// write into the test user's Downloads meanwhile.
				home = t.TempDir()
				env := []string{"HOME=" + home}
				for _, kv := range os.Environ() {
					if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
						env = append(env, kv)
					}
				}
				ctx, stop, err := launchWith("", false, chromedp.NoInheritEnv, chromedp.Env(env...))
				require.NoError(t, err, "start Chromium")
				t.Cleanup(stop)
				browser = ctx
			}
			downloads := filepath.Join(home, "Downloads")
			list := func(dir string) []string {
				var names []string
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					names = append(names, e.Name())
				}
				return names
			}
			before := list(downloads)
			srv := serve(t)
			fileURL := srv.URL + faultrows.DownloadPath
			newContext := func() cdp.BrowserContextID {
				ctx, cancel := context.WithTimeout(browser, 10*time.Second)
				defer cancel()
				c, err := chromedp.CallBrowser(ctx, target.CreateBrowserContext, target.CreateBrowserContextParams{})
				require.NoError(t, err)
				return c.BrowserContextID
			}
			tab := func(t *testing.T, bw *chromedpguard.BrowserWatcher, bc cdp.BrowserContextID) *chromedpguard.Watcher {
				w, err := bw.Watch(newTab(t, browser, chromedp.WithExistingBrowserContext(bc)))
				require.NoError(t, err)
				t.Cleanup(func() { _ = w.Close() })
				require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL))
				// Chrome tells of a download only when the page before it
				// had finished loading.
				_, err = w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
				require.NoError(t, err)
				return w
			}
			download := func(t *testing.T, w *chromedpguard.Watcher) string {
				err := w.Navigate(within(t, 10*time.Second), fileURL)
				var be *chromedpguard.BlockedError
				require.ErrorAs(t, err, &be, "%v", err)
				return be.Detail
			}
			permission := func(t *testing.T, w *chromedpguard.Watcher, js string) string {
				res, err := w.Eval(within(t, 10*time.Second), js)
				require.NoError(t, err)
				var s string
				require.NoError(t, json.Unmarshal(res.Value, &s))
				return s
			}
			watchBrowser := func(opts *chromedpguard.Options) *chromedpguard.BrowserWatcher {
				bw, err := chromedpguard.WatchBrowser(browser, opts)
				require.NoError(t, err)
				t.Cleanup(func() { _ = bw.Close() })
				return bw
			}
			const (
				geolocation   = `() => navigator.permissions.query({name: "geolocation"}).then(s => s.state)`
				notifications = `() => Notification.requestPermission()`
			)

			before1 := newContext()
			dir := t.TempDir()
			saves := watchBrowser(&chromedpguard.Options{DownloadDir: dir,
				Permissions: []chromedpguard.PermissionGrant{{Origin: srv.URL, Permissions: []string{"geolocation"}}}})
			after1 := newContext()
			for i, bc := range []cdp.BrowserContextID{before1, after1} {
				w := tab(t, saves, bc)
				detail := download(t, w)
				assert.True(t, strings.HasPrefix(detail, `"x.bin" saved at `+dir+string(filepath.Separator)), "context %d: %s", i, detail)
				assert.Equal(t, "granted", permission(t, w, geolocation), "context %d", i)
				assert.Equal(t, "denied", permission(t, w, notifications), "context %d", i)
			}
			require.Len(t, list(dir), 2, "both files are saved into DownloadDir")
			require.NoError(t, saves.Close())

			denies := watchBrowser(nil)
			after2 := newContext()
			for i, bc := range []cdp.BrowserContextID{before1, after1, after2} {
				w := tab(t, denies, bc)
				assert.Equal(t, `"x.bin" denied`, download(t, w), "context %d", i)
				assert.Equal(t, "denied", permission(t, w, notifications), "context %d", i)
			}
			assert.Equal(t, before, list(downloads), "nothing written into %s", downloads)
		})
	}
}
