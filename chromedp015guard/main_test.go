package chromedp015guard_test

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"
)

// sharedBrowser is the browser the tests share; tests that would disturb
// others launch their own.
var sharedBrowser context.Context

func TestMain(m *testing.M) {
	ctx, stop, err := launch()
	if err != nil {
		panic("start Chromium: " + err.Error())
	}
	sharedBrowser = ctx
	goleak.VerifyTestMain(closing{m, stop})
}

// closing ends the shared browser before goleak looks for goroutines.
type closing struct {
	m    *testing.M
	stop func()
}

func (c closing) Run() int {
	defer c.stop()
	return c.m.Run()
}

// launch starts a headless Chromium with chromedp's own allocator: the
// system browser (TABGUARD_BROWSER names another), never a download.
func launch() (context.Context, func(), error) { return launchWith(false) }

// isolatedBrowser launches a browser of the test's own with site isolation
// on, whatever chromedp's default options say of it in each release: an
// iframe of another site runs in a renderer process, and a target, of its
// own. It ends the browser when t ends.
func isolatedBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx, stop, err := launchWith(true)
	if err != nil {
		t.Fatal("start Chromium with site isolation: ", err) // fail, never skip
	}
	t.Cleanup(stop)
	return ctx
}

// launchWith is launch, with site isolation forced on when isolated is set.
func launchWith(isolated bool) (context.Context, func(), error) {
	dir, err := os.MkdirTemp("", "chromedp015guard-test-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	if isolated {
		opts = append(opts, chromedp.Flag("site-per-process", true))
	}
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// chromedp logs its own failures to read a crashed tab's document,
	// which the tests cause on purpose.
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	stop := func() {
		cancel()
		cancelAlloc()
		_ = os.RemoveAll(dir)
	}
	if err := chromedp.Run(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}
