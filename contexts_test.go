package tabguard_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestPoliciesInEveryContext holds that the download and permission
// policies hold in incognito browser contexts (Target.createBrowserContext)
// as in the default one, headless and headed: in a context that existed
// when the watcher started and in one created after, a download is saved
// into Options.DownloadDir, or denied without it, and never written into
// the user's Downloads folder; a permission the Options grant is granted,
// and one they do not is denied at once.
func TestPoliciesInEveryContext(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"headless", "headed"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var b *testbrowser.Browser
			if mode == "headed" {
				b = testbrowser.Headed(t)
			} else {
				b = launchWithHome(t, t.TempDir())
			}
			downloads := filepath.Join(b.Home, "Downloads")
			before := files(t, downloads)
			srv := serve(t)
			fileURL := srv.URL + faultrows.DownloadPath
			newContext := func() string {
				c, err := proto.TargetCreateBrowserContext{}.Call(b.Browser.Context(testbrowser.Context(t, 10*time.Second)))
				require.NoError(t, err)
				t.Cleanup(func() { _ = proto.TargetDisposeBrowserContext{BrowserContextID: c.BrowserContextID}.Call(b.Browser) })
				return string(c.BrowserContextID)
			}
			// tab opens a loaded tab of bw in the browser context bc.
			tab := func(t *testing.T, bw *tabguard.BrowserWatcher, bc string) *tabguard.Watcher {
				target, err := proto.TargetCreateTarget{URL: "about:blank", BrowserContextID: proto.BrowserBrowserContextID(bc)}.
					Call(b.Browser.Context(testbrowser.Context(t, 10*time.Second)))
				require.NoError(t, err)
				page, err := b.Browser.PageFromTarget(target.TargetID)
				require.NoError(t, err)
				t.Cleanup(func() { _ = page.Close() })
				w, err := bw.Watch(page)
				require.NoError(t, err)
				t.Cleanup(func() { _ = w.Close() })
				require.NoError(t, w.Navigate(testbrowser.Context(t, 10*time.Second), srv.URL))
				// Chrome tells of a download only when the page before it
				// had finished loading.
				_, err = w.Wait(testbrowser.Context(t, 10*time.Second), func(s tabguard.TabState) bool { return s.Loaded })
				require.NoError(t, err)
				return w
			}
			download := func(t *testing.T, w *tabguard.Watcher) string {
				err := w.Navigate(testbrowser.Context(t, 10*time.Second), fileURL)
				var be *tabguard.BlockedError
				require.ErrorAs(t, err, &be, "%v", err)
				return be.Detail
			}
			permission := func(t *testing.T, w *tabguard.Watcher, js string) string {
				res, err := w.Eval(testbrowser.Context(t, 10*time.Second), js)
				require.NoError(t, err)
				return res.Value.Str()
			}
			const (
				geolocation   = `() => navigator.permissions.query({name: "geolocation"}).then(s => s.state)`
				notifications = `() => Notification.requestPermission()`
			)

			before1 := newContext()
			dir := t.TempDir()
			saves := watchBrowser(t, b.Browser, &tabguard.Options{DownloadDir: dir,
				Permissions: []tabguard.PermissionGrant{{Origin: srv.URL, Permissions: []string{"geolocation"}}}})
			after1 := newContext()
			for i, bc := range []string{before1, after1} {
				w := tab(t, saves, bc)
				detail := download(t, w)
				assert.True(t, strings.HasPrefix(detail, `"x.bin" saved at `+dir+string(filepath.Separator)), "context %d: %s", i, detail)
				assert.Equal(t, "granted", permission(t, w, geolocation), "context %d", i)
				assert.Equal(t, "denied", permission(t, w, notifications), "context %d", i)
			}
			require.Len(t, files(t, dir), 2, "both files are saved into DownloadDir")
			require.NoError(t, saves.Close())

			denies := watchBrowser(t, b.Browser, nil)
			after2 := newContext()
			for i, bc := range []string{before1, after1, after2} {
				w := tab(t, denies, bc)
				assert.Equal(t, `"x.bin" denied`, download(t, w), "context %d", i)
				assert.Equal(t, "denied", permission(t, w, notifications), "context %d", i)
			}
			assert.True(t, slices.Equal(files(t, downloads), before), "nothing written into %s: %v", downloads, files(t, downloads))
		})
	}
}
