package chromedp015guard_test

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
	"github.com/tabguard/tabguard/chromedp015guard"
)

// TestPoliciesInEveryContext holds that the download and permission
// policies hold in incognito browser contexts as in the default one: in a
// context that existed when the watcher started and in one created after,
// a download is saved into Options.DownloadDir, or denied without it; a
// permission the Options grant is granted, and one they do not is denied
// at once. And that the download's fate is Chrome's report: a watcher's
// tab under a later watcher's policy says what that policy did.
func TestPoliciesInEveryContext(t *testing.T) {
	t.Parallel()
	browser, stop, err := launch()
	require.NoError(t, err, "start Chromium")
	t.Cleanup(stop)
	srv := serve(t)
	fileURL := serveDownload(t).URL + "/x.bin"
	inBrowser := func() context.Context {
		ctx, cancel := context.WithTimeout(browser, 10*time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	newContext := func() cdp.BrowserContextID {
		var id cdp.BrowserContextID
		require.NoError(t, chromedp.Run(inBrowser(), chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			id, err = target.CreateBrowserContext().Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
			return err
		})))
		return id
	}
	tab := func(t *testing.T, bw *chromedp015guard.BrowserWatcher, bc cdp.BrowserContextID) *chromedp015guard.Watcher {
		var id target.ID
		require.NoError(t, chromedp.Run(inBrowser(), chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			id, err = target.CreateTarget("about:blank").WithBrowserContextID(bc).WithNewWindow(true).
				Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
			return err
		})), "open a tab in the context")
		tab, cancel := chromedp.NewContext(browser, chromedp.WithTargetID(id))
		t.Cleanup(cancel)
		require.NoError(t, chromedp.Run(tab), "open a tab")
		w, err := bw.Watch(tab)
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.Close() })
		require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL))
		// Chrome tells of a download only when the page before it had
		// finished loading.
		_, err = w.Wait(within(t, 10*time.Second), func(s chromedp015guard.TabState) bool { return s.Loaded })
		require.NoError(t, err)
		return w
	}
	download := func(t *testing.T, w *chromedp015guard.Watcher) string {
		err := w.Navigate(within(t, 10*time.Second), fileURL)
		var be *chromedp015guard.BlockedError
		require.ErrorAs(t, err, &be, "%v", err)
		return be.Detail
	}
	permission := func(t *testing.T, w *chromedp015guard.Watcher, js string) string {
		res, err := w.Eval(within(t, 10*time.Second), js)
		require.NoError(t, err)
		var s string
		require.NoError(t, json.Unmarshal(res.Value, &s))
		return s
	}
	watchBrowser := func(opts *chromedp015guard.Options) *chromedp015guard.BrowserWatcher {
		bw, err := chromedp015guard.WatchBrowser(browser, opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = bw.Close() })
		return bw
	}
	const (
		geolocation   = `() => navigator.permissions.query({name: "geolocation"}).then(s => s.state)`
		notifications = `() => Notification.requestPermission()`
	)

	before := newContext()
	dir := t.TempDir()
	saves := watchBrowser(&chromedp015guard.Options{DownloadDir: dir,
		Permissions: []chromedp015guard.PermissionGrant{{Origin: srv.URL, Permissions: []string{"geolocation"}}}})
	after := newContext()
	for i, bc := range []cdp.BrowserContextID{before, after} {
		w := tab(t, saves, bc)
		detail := download(t, w)
		assert.True(t, strings.HasPrefix(detail, `"x.bin" saved at `+dir+string(filepath.Separator)), "context %d: %s", i, detail)
		assert.Equal(t, "granted", permission(t, w, geolocation), "context %d", i)
		assert.Equal(t, "denied", permission(t, w, notifications), "context %d", i)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "both files are saved into DownloadDir")

	// A later watcher that denies downloads: the first one's tab says so.
	// The tab's context is made first, so the first watcher's policy is
	// in force there (its tab waits for it) before the second one's start
	// sets its own in every context: which of two watchers learning a new
	// context at once lands its policy last is a race.
	w := tab(t, saves, newContext())
	watchBrowser(nil)
	assert.Equal(t, `"x.bin" denied, though this watcher's policy saves downloads: a policy set since by another watcher or client of the browser holds`, download(t, w))
}
