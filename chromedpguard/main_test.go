package chromedpguard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/faultrows"
	"go.uber.org/goleak"
)

// sharedBrowser is the chromedp context of the browser most tests share;
// each test opens its own tab on it. Site isolation is off in it, as in the
// rod tests' shared browser; sharedIsolated is the one with it on.
var sharedBrowser context.Context

// browserM starts the shared browser around the tests and closes the
// shared browsers before goleak looks for leaked goroutines.
type browserM struct{ m *testing.M }

func (b browserM) Run() int {
	ctx, stop, err := launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start Chromium:", err) // fail, never skip: CI must not go green untested
		return 1
	}
	defer stop()
	defer closeIsolated()
	defer closeHeaded()
	sharedBrowser = ctx
	code := b.m.Run()
	if err := closeRemote(); err != nil {
		fmt.Fprintln(os.Stderr, "end the pool tests' Chromium:", err)
		code = max(code, 1)
	}
	return code
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(browserM{m}) }

// launch starts headless Chromium with a fresh user-data dir through
// chromedp's ExecAllocator, with site isolation off, and returns the
// context of its first tab; stop ends the browser and removes the dir. It
// never downloads a browser: chromedp finds the system Chromium, or takes
// $TABGUARD_BROWSER.
func launch() (context.Context, func(), error) { return launchWith("", false) }

// launchIsolated is launch with site isolation on: an iframe of another
// site runs in a renderer process, and a target, of its own.
func launchIsolated() (context.Context, func(), error) { return launchWith("", true) }

// launchDiscardable is launch with chrome://discards on, through which a
// test can discard a tab as the browser does to save memory.
func launchDiscardable() (context.Context, func(), error) {
	return launchWith(faultrows.DiscardLocalState, false)
}

// isolated is the site-isolated browser the tests share, launched on
// first use (sharedIsolated).
var isolated struct {
	sync.Mutex
	ctx  context.Context
	stop func()
	err  error
}

// sharedIsolated returns the site-isolated browser the tests share
// (faultrows.Isolated), launching it on first use; TestMain ends it.
func sharedIsolated(t testing.TB) context.Context {
	t.Helper()
	isolated.Lock()
	defer isolated.Unlock()
	if isolated.ctx == nil && isolated.err == nil {
		isolated.ctx, isolated.stop, isolated.err = launchIsolated()
	}
	if isolated.err != nil {
		t.Fatal("start Chromium with site isolation: ", isolated.err) // fail, never skip
	}
	return isolated.ctx
}

// dedicatedIsolated launches a site-isolated browser of the test's own,
// for a test that crashes an out-of-process iframe: Chrome puts the
// out-of-process iframes of one site, in every tab, in one renderer
// process, so the crash would take other tests' frames with it. It ends
// the browser when t ends.
func dedicatedIsolated(t testing.TB) context.Context {
	t.Helper()
	ctx, stop, err := launchIsolated()
	if err != nil {
		t.Fatal("start Chromium with site isolation: ", err) // fail, never skip
	}
	t.Cleanup(stop)
	return ctx
}

// closeIsolated ends the site-isolated browser, if it was launched.
func closeIsolated() {
	isolated.Lock()
	defer isolated.Unlock()
	if isolated.stop != nil {
		isolated.stop()
		isolated.ctx, isolated.stop = nil, nil
	}
}

// launchWith is launch with localState, when not empty, as the user-data
// dir's Local State file, and with site isolation on when isolated is set.
//
// chromedp's DefaultExecAllocatorOptions keep Chrome's site isolation on,
// so a program on chromedp's defaults gets out-of-process iframes. The
// tests share a browser with it off, as rod's launcher runs Chrome and as
// the rod tests' shared browser does (testbrowser.Launch), so one fault
// matrix holds for both backends, and a browser with it on (the rows of
// faultrows.Isolated), as testbrowser.LaunchSiteIsolated does.
//
// extra are allocator options after the others, such as those of a headed
// browser (launchHeaded).
func launchWith(localState string, isolated bool, extra ...chromedp.ExecAllocatorOption) (context.Context, func(), error) {
	dir, err := os.MkdirTemp("", "chromedpguard-test-")
	if err != nil {
		return nil, nil, err
	}
	if localState != "" {
		if err := os.WriteFile(filepath.Join(dir, "Local State"), []byte(localState), 0o600); err != nil {
			_ = os.RemoveAll(dir)
			return nil, nil, err
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Names under .invalid fail inside Chrome, with no DNS query.
		chromedp.Flag("host-resolver-rules", "MAP *.invalid ~NOTFOUND"),
	)
	if isolated {
		opts = append(opts, chromedp.Flag("site-per-process", true))
	} else {
		opts = append(opts, chromedp.Flag("disable-site-isolation-trials", true))
	}
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// chromedp logs its own failures to read a crashed tab's document,
	// which the tests cause on purpose.
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	stop := func() {
		cancel()
		cancelAlloc() // waits for the browser process to exit
		_ = os.RemoveAll(dir)
	}
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}
