package tabguard_test

import (
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestDownloadFateFromChrome holds that a download's fate is what Chrome
// reported of it, whatever policy is in force and whoever set it: a
// watcher whose own policy denies downloads, under the policy of a later
// watcher that saves them, says the file was saved; one whose policy
// saves them, under a later one that denies them, says it was denied and
// names no file that is not there; and under a policy set by another
// DevTools client, which takes the browser's download events, it claims
// neither. Each row runs in a browser of its own: the policy is the
// browser's.
func TestDownloadFateFromChrome(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	fileURL := srv.URL + faultrows.DownloadPath
	// navigate runs the download in a tab of b watched by bw.
	navigate := func(t *testing.T, b *rod.Browser, bw *tabguard.BrowserWatcher) *tabguard.BlockedError {
		t.Helper()
		page := testbrowser.NewPage(t, &testbrowser.Browser{Browser: b})
		require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).Navigate(srv.URL))
		require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
		w, err := bw.Watch(page)
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.Close() })
		err = w.Navigate(testbrowser.Context(t, 10*time.Second), fileURL)
		var be *tabguard.BlockedError
		require.ErrorAs(t, err, &be, "%v", err)
		assert.ErrorIs(t, err, tabguard.ErrDownload)
		return be
	}

	t.Run("saved under a later watcher's policy", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		b := launchWithHome(t, home)
		dir := t.TempDir()
		denies := watchBrowser(t, b.Browser, nil)
		watchBrowser(t, b.Browser, &tabguard.Options{DownloadDir: dir})
		be := navigate(t, b.Browser, denies)
		assert.Equal(t, `"x.bin" saved (4096 bytes), where the browser did not say`, be.Detail,
			"rod's proto drops the path Chrome reports; the watcher's own policy names no directory")
		require.Eventually(t, func() bool { return len(files(t, dir)) == 1 }, 10*time.Second, 10*time.Millisecond,
			"the file is in the later watcher's directory: %v", files(t, dir))
	})
	t.Run("denied under a later watcher's policy", func(t *testing.T) {
		t.Parallel()
		b := launchWithHome(t, t.TempDir())
		dir := t.TempDir()
		saves := watchBrowser(t, b.Browser, &tabguard.Options{DownloadDir: dir})
		watchBrowser(t, b.Browser, nil)
		be := navigate(t, b.Browser, saves)
		assert.Equal(t, `"x.bin" denied, though this watcher's policy saves downloads: a policy set since by another watcher or client of the browser holds`, be.Detail)
		assert.NotContains(t, be.Error(), "set Options.DownloadDir")
		assert.Empty(t, files(t, dir))
	})
	t.Run("under another client's policy", func(t *testing.T) {
		t.Parallel()
		b := launchWithHome(t, t.TempDir())
		dir := t.TempDir()
		saves := watchBrowser(t, b.Browser, &tabguard.Options{DownloadDir: dir})
		other := rod.New().ControlURL(b.URL)
		require.NoError(t, other.Connect())
		t.Cleanup(func() { _ = other.Close() })
		require.NoError(t, proto.BrowserSetDownloadBehavior{Behavior: "deny", EventsEnabled: true}.Call(other))
		be := navigate(t, b.Browser, saves)
		// Chrome tells the page's session of it (Page.downloadProgress),
		// though the browser's events go to the other client.
		assert.Equal(t, `"x.bin" denied, though this watcher's policy saves downloads: a policy set since by another watcher or client of the browser holds`, be.Detail)
		assert.Empty(t, files(t, dir))
	})
}
