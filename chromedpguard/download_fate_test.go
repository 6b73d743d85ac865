package chromedpguard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestDownloadFateFromChrome holds that a download's fate is what Chrome
// reported of it, whatever policy is in force and whoever set it: a
// watcher whose own policy denies downloads, under the policy of a later
// watcher that saves them, names the file Chrome saved, where it is; one
// whose policy saves them, under a later one that denies them, says it was
// denied. Each row runs in a browser of its own: the policy is the
// browser's.
func TestDownloadFateFromChrome(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	fileURL := srv.URL + faultrows.DownloadPath
	// download runs the download in a tab of browser watched by bw.
	download := func(t *testing.T, browser context.Context, bw *chromedpguard.BrowserWatcher) *chromedpguard.BlockedError {
		t.Helper()
		w, err := bw.Watch(newTab(t, browser))
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.Close() })
		require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL))
		_, err = w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
		require.NoError(t, err)
		err = w.Navigate(within(t, 10*time.Second), fileURL)
		var be *chromedpguard.BlockedError
		require.ErrorAs(t, err, &be, "%v", err)
		assert.ErrorIs(t, err, chromedpguard.ErrDownload)
		return be
	}
	watchBrowser := func(t *testing.T, browser context.Context, opts *chromedpguard.Options) *chromedpguard.BrowserWatcher {
		bw, err := chromedpguard.WatchBrowser(browser, opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = bw.Close() })
		return bw
	}

	t.Run("saved under a later watcher's policy", func(t *testing.T) {
		t.Parallel()
		browser := dedicated(t)
		dir := t.TempDir()
		denies := watchBrowser(t, browser, nil)
		watchBrowser(t, browser, &chromedpguard.Options{DownloadDir: dir})
		be := download(t, browser, denies)
		path, ok := strings.CutPrefix(be.Detail, `"x.bin" saved at `)
		require.True(t, ok, "detail %q", be.Detail)
		path, ok = strings.CutSuffix(path, " (4096 bytes)")
		require.True(t, ok, "detail %q", be.Detail)
		assert.Equal(t, dir, filepath.Dir(path), "Chrome saved it into the later watcher's directory")
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.EqualValues(t, faultrows.DownloadSize, fi.Size())
	})
	t.Run("denied under a later watcher's policy", func(t *testing.T) {
		t.Parallel()
		browser := dedicated(t)
		dir := t.TempDir()
		saves := watchBrowser(t, browser, &chromedpguard.Options{DownloadDir: dir})
		watchBrowser(t, browser, nil)
		be := download(t, browser, saves)
		assert.Equal(t, `"x.bin" denied, though this watcher's policy saves downloads: a policy set since by another watcher or client of the browser holds`, be.Detail)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries)
	})
}
