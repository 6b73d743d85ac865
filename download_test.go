package tabguard_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestDownloads holds where downloads go, in a browser of its own (the
// policy is the browser's) whose user's home is a temporary directory. A
// browser left alone writes a download into $HOME/Downloads: that is the
// folder the default policy keeps empty, for a navigation and for a
// script's <a download> click alike. With Options.DownloadDir, each file
// lands in that directory, at the path and with the size Navigate reports.
func TestDownloads(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	home := t.TempDir()
	b := launchWithHome(t, home)
	downloads := filepath.Join(home, "Downloads")
	fileURL := srv.URL + faultrows.DownloadPath
	click := `() => { const a = document.createElement('a'); a.href = '` + faultrows.DownloadPath +
		`'; a.download = 'y.bin'; document.documentElement.append(a); a.click(); return 1 }`

	t.Run("left alone, the browser writes into HOME/Downloads", func(t *testing.T) {
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL))
		_ = page.Context(testbrowser.Context(t, 10*time.Second)).Navigate(fileURL) // net::ERR_ABORTED
		require.Eventually(t, func() bool { return slices.Equal(files(t, downloads), []string{"x.bin"}) }, 10*time.Second, 10*time.Millisecond,
			"the measured default: Chrome saves into its user's Downloads")
	})
	before := files(t, downloads)

	t.Run("denied by default", func(t *testing.T) {
		ended := make(chan string, 4)
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL))
		require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
		w := watch(t, page, &tabguard.Options{Logger: slog.New(logTo(ended))})
		err := w.Navigate(testbrowser.Context(t, 10*time.Second), fileURL)
		var be *tabguard.BlockedError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, tabguard.ErrDownload)
		assert.NotErrorIs(t, err, tabguard.ErrNoDocument)
		assert.Equal(t, `"x.bin" denied`, be.Detail)
		res, err := w.Eval(testbrowser.Context(t, 10*time.Second), click)
		require.NoError(t, err, "the old document answers")
		assert.Equal(t, 1, res.Value.Int())
		for range 2 { // the navigation's download, then the script's
			select {
			case msg := <-ended:
				assert.Contains(t, msg, "denied")
			case <-testbrowser.Context(t, 10*time.Second).Done():
				t.Fatal("no download ended")
			}
		}
		// Measured: Chrome may hold an empty hidden file there for a moment
		// (.org.chromium.Chromium.XXXXXX) as it denies a download.
		assert.Eventually(t, func() bool { return slices.Equal(files(t, downloads), before) }, 10*time.Second, 10*time.Millisecond,
			"nothing written into the Downloads folder: %v", files(t, downloads))
	})

	t.Run("saved into DownloadDir", func(t *testing.T) {
		dir := t.TempDir()
		ended := make(chan string, 4)
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL))
		require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
		w := watch(t, page, &tabguard.Options{DownloadDir: dir, Logger: slog.New(logTo(ended))})
		start := time.Now()
		err := w.Navigate(testbrowser.Context(t, 10*time.Second), fileURL)
		t.Logf("Navigate answered in %v: %v", time.Since(start), err)
		var be *tabguard.BlockedError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, tabguard.ErrDownload)
		path, ok := strings.CutPrefix(be.Detail, `"x.bin" saved at `)
		require.True(t, ok, "detail %q", be.Detail)
		path, ok = strings.CutSuffix(path, " (4096 bytes)")
		require.True(t, ok, "detail %q", be.Detail)
		assert.Equal(t, dir, filepath.Dir(path))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.EqualValues(t, faultrows.DownloadSize, fi.Size())

		_, err = w.Eval(testbrowser.Context(t, 10*time.Second), click)
		require.NoError(t, err)
		// Wait for Chrome to say both downloads ended: until then it may
		// still be writing or renaming a file in dir, which t.TempDir's
		// cleanup would race.
		for range 2 { // the navigation's download, then the script's
			select {
			case msg := <-ended:
				assert.Contains(t, msg, "saved at "+dir)
			case <-testbrowser.Context(t, 10*time.Second).Done():
				t.Fatal("no download ended")
			}
		}
		require.Eventually(t, func() bool { return len(files(t, dir)) == 2 }, 10*time.Second, 10*time.Millisecond,
			"the script's download is saved there too: %v", files(t, dir))
		assert.Eventually(t, func() bool { return slices.Equal(files(t, downloads), before) }, 10*time.Second, 10*time.Millisecond,
			"nothing written into the Downloads folder: %v", files(t, downloads))
	})
}

// launchWithHome launches a headless Chromium of the test's own whose
// user's home is home, and closes it when t ends.
func launchWithHome(t *testing.T, home string) *testbrowser.Browser {
	t.Helper()
	bin, err := testbrowser.Bin()
	require.NoError(t, err)
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).Leakless(false).Env(env...).
		UserDataDir(filepath.Join(home, "profile")).
		Set("disable-gpu").Set("no-first-run").Set("disable-background-networking").Set("disable-sync")
	u, err := l.Launch()
	require.NoError(t, err)
	rb := rod.New().ControlURL(u)
	if err := rb.Connect(); err != nil {
		l.Kill()
		t.Fatal(err)
	}
	b := &testbrowser.Browser{Browser: rb, Launcher: l, URL: u, Home: home}
	t.Cleanup(b.Close)
	return b
}

// files lists the names of the files in dir; none when it does not exist.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// logTo is a slog handler that sends the error of each "download ended"
// record to ch, dropping it when ch is full.
func logTo(ch chan<- string) slog.Handler { return downloadLog{ch} }

type downloadLog struct{ ch chan<- string }

func (h downloadLog) Enabled(context.Context, slog.Level) bool { return true }
func (h downloadLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h downloadLog) WithGroup(string) slog.Handler            { return h }
func (h downloadLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "tabguard: download ended" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			select {
			case h.ch <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}
