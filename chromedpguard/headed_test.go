package chromedpguard_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/xvfb"
)

// headedBrowser is a headed browser: its chromedp context, and its user's
// home directory, which is its own.
type headedBrowser struct {
	ctx  context.Context
	home string
}

// launchHeaded starts Chromium without --headless on an Xvfb display of
// its own, as a user's Chrome or a headed pool runs, with a home of its own
// for the browser's user (where a download would land), as
// testbrowser.LaunchHeaded does for rod. DISPLAY and HOME are set for the
// browser's process only. stop ends the browser, then Xvfb, and removes
// the home.
func launchHeaded() (headedBrowser, func(), error) {
	d, err := xvfb.Start()
	if err != nil {
		return headedBrowser{}, nil, err
	}
	home, err := os.MkdirTemp("", "chromedpguard-home-")
	if err != nil {
		d.Stop()
		return headedBrowser{}, nil, err
	}
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	ctx, stopBrowser, err := launchWith("", false,
		chromedp.Flag("headless", false),
		// The browser's environment is env alone: no XDG_ directory leads
		// it back into the test user's home.
		chromedp.NoInheritEnv, chromedp.Env(d.Env(env)...))
	if err != nil {
		d.Stop()
		_ = os.RemoveAll(home)
		return headedBrowser{}, nil, err
	}
	return headedBrowser{ctx, home}, func() {
		stopBrowser()
		d.Stop()
		_ = os.RemoveAll(home)
	}, nil
}

// dedicatedHeaded launches a headed browser of the test's own
// (faultrows.HeadedOwn) and ends it when t ends. Without Xvfb or Chromium
// it skips t, saying what to install, or fails it where $TABGUARD_HEADED
// is set (CI).
func dedicatedHeaded(t testing.TB) headedBrowser {
	t.Helper()
	b, stop, err := launchHeaded()
	if err != nil {
		xvfb.Unavailable(t, err)
	}
	t.Cleanup(stop)
	return b
}

// headed is the headed browser the tests share, launched on first use
// (sharedHeaded).
var headed struct {
	sync.Mutex
	b    headedBrowser
	stop func()
	err  error
}

// sharedHeaded returns the headed browser the tests share
// (faultrows.Headed), launching it on first use; TestMain ends it. It
// skips or fails t as dedicatedHeaded does.
func sharedHeaded(t testing.TB) headedBrowser {
	t.Helper()
	headed.Lock()
	defer headed.Unlock()
	if headed.stop == nil && headed.err == nil {
		headed.b, headed.stop, headed.err = launchHeaded()
	}
	if headed.err != nil {
		xvfb.Unavailable(t, headed.err)
	}
	return headed.b
}

// closeHeaded ends the shared headed browser, if it was launched.
func closeHeaded() {
	headed.Lock()
	defer headed.Unlock()
	if headed.stop != nil {
		headed.stop()
		headed.b, headed.stop = headedBrowser{}, nil
	}
}

// requireHeaded fails t unless the tab of ctx is in a headed browser: a
// headed row must meet what headed Chrome draws, not headless Chrome's
// silent answers.
func requireHeaded(t *testing.T, tab context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	ua, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
	require.NoError(t, err)
	require.NotContains(t, ua, "Headless", "a headed browser's user agent")
}
