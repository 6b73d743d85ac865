package chromedpguard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/faultrows"
	"go.uber.org/goleak"
)

// sharedBrowser is the chromedp context of the browser most tests share;
// each test opens its own tab on it.
var sharedBrowser context.Context

// browserM starts the shared browser around the tests and closes it before
// goleak looks for leaked goroutines.
type browserM struct{ m *testing.M }

func (b browserM) Run() int {
	ctx, stop, err := launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start Chromium:", err) // fail, never skip: CI must not go green untested
		return 1
	}
	defer stop()
	sharedBrowser = ctx
	return b.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(browserM{m}) }

// launch starts headless Chromium with a fresh user-data dir through
// chromedp's ExecAllocator and returns the context of its first tab; stop
// ends the browser and removes the dir. It never downloads a browser:
// chromedp finds the system Chromium, or takes $TABGUARD_BROWSER.
func launch() (context.Context, func(), error) { return launchWith("") }

// launchDiscardable is launch with chrome://discards on, through which a
// test can discard a tab as the browser does to save memory.
func launchDiscardable() (context.Context, func(), error) {
	return launchWith(faultrows.DiscardLocalState)
}

// launchWith is launch with localState, when not empty, as the user-data
// dir's Local State file.
func launchWith(localState string) (context.Context, func(), error) {
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
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
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
