package testbrowser

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/tabguard/tabguard/internal/xvfb"
)

// LaunchHeaded starts Chromium without --headless, drawing on an Xvfb
// display of its own, as a user's Chrome or a headed pool runs: the
// sign-in prompt, "Leave site?" and other native UI are drawn there.
// DISPLAY is set for the browser's process only, and its user gets a
// fresh home directory (Browser.Home), so nothing it writes, such as a
// download, lands in the test user's. Close ends the browser, then Xvfb.
func LaunchHeaded() (*Browser, error) {
	d, err := xvfb.Start()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "tabguard-home-")
	if err != nil {
		d.Stop()
		return nil, err
	}
	b, err := launchOpts(launchConfig{display: d, home: home})
	if err != nil {
		d.Stop()
		_ = os.RemoveAll(home)
		return nil, err
	}
	return b, nil
}

// headedEnv is the environment of a headed browser: the test's own, with
// HOME and DISPLAY its own, and no XDG_ directories that would lead it
// back into the test user's home.
func headedEnv(d *xvfb.Display, home string) []string {
	env := []string{"HOME=" + home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	return d.Env(env)
}

// Headed launches a headed browser of t's own (LaunchHeaded) and closes it
// when t ends. Without Xvfb or Chromium it skips t, saying what to
// install, unless $TABGUARD_HEADED is set (CI), where it fails t.
func Headed(t testing.TB) *Browser {
	t.Helper()
	b, err := LaunchHeaded()
	if err != nil {
		xvfb.Unavailable(t, err)
	}
	t.Cleanup(b.Close)
	return b
}

var headed struct {
	sync.Mutex
	b   *Browser
	err error
}

// SharedHeaded is Shared for a headed browser (LaunchHeaded), which skips t
// as Headed does when none can start; CloseShared ends it too.
func SharedHeaded(t testing.TB) *Browser {
	t.Helper()
	headed.Lock()
	defer headed.Unlock()
	if headed.b == nil && headed.err == nil {
		headed.b, headed.err = LaunchHeaded()
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
	if headed.b != nil {
		headed.b.Close()
		headed.b = nil
	}
}
