// Package testbrowser launches headless Chromium, or headed Chromium on a
// private Xvfb display, for tests and serves their
// pages from 127.0.0.1. It never lets rod download a browser: with no
// system Chromium the test fails and says what to install.
package testbrowser

import (
	"context"
	"fmt"
	"github.com/tabguard/tabguard/internal/testctx"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/xvfb"
)

// EnvBin names an environment variable that, when set, is the browser binary
// to use instead of the one launcher.LookPath finds.
const EnvBin = "TABGUARD_BROWSER"

// Browser is a launched Chromium and its rod connection.
type Browser struct {
	*rod.Browser
	Launcher *launcher.Launcher
	URL      string // the DevTools WebSocket URL, for a second connection
	// Home is the browser user's home directory, where a browser of
	// LaunchHeaded has one of its own (and Chrome's default downloads
	// folder, Home/Downloads); empty for the others.
	Home    string
	dataDir string
	display *xvfb.Display
}

// Launch starts a fresh headless Chromium with its own user-data dir and
// connects rod to it. The caller should call Close when finished.
func Launch() (*Browser, error) { return launch("", 0) }

// LaunchSiteIsolated is Launch with site isolation on, as Chrome runs by
// default and as chromedp, remote pools and a user's own Chrome run it:
// an iframe of another site gets a renderer process, and a target, of its
// own. rod's launcher turns it off; Launch keeps that.
func LaunchSiteIsolated() (*Browser, error) { return launchWith("", 0, true) }

// LaunchRenderers is Launch with at most n renderer processes, so that
// tabs share renderers as they do in a browser with many tabs open, where
// Chrome stops starting a renderer for each: a crash of one renderer then
// takes several tabs with it.
func LaunchRenderers(n int) (*Browser, error) { return launch("", n) }

// LaunchDiscardable is Launch with chrome://discards enabled, through
// which a test can discard a tab as the browser does to save memory. Chrome
// turns its internal debugging pages off unless the user-data dir's Local
// State says otherwise.
func LaunchDiscardable() (*Browser, error) {
	return launch(faultrows.DiscardLocalState, 0)
}

// DiscardJS discards the tab whose URL starts with its argument, when
// evaluated (awaiting its promise) in a tab at chrome://discards of a
// browser from LaunchDiscardable; see [faultrows.DiscardJS].
const DiscardJS = faultrows.DiscardJS

func launch(localState string, renderers int) (*Browser, error) {
	return launchOpts(launchConfig{localState: localState, renderers: renderers})
}

func launchWith(localState string, renderers int, isolated bool) (*Browser, error) {
	return launchOpts(launchConfig{localState: localState, renderers: renderers, isolated: isolated})
}

// launchConfig is how to launch a browser: the user-data dir's Local
// State, when not empty; at most renderers renderer processes, when
// positive; site isolation on; and, for a headed browser, the display it
// draws on and its user's home, which Close removes.
type launchConfig struct {
	localState string
	renderers  int
	isolated   bool
	display    *xvfb.Display
	home       string
}

func launchOpts(c launchConfig) (*Browser, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tabguard-chromium-")
	if err != nil {
		return nil, err
	}
	if c.localState != "" {
		if err := os.WriteFile(filepath.Join(dir, "Local State"), []byte(c.localState), 0o600); err != nil {
			return nil, err
		}
	}
	l := launcher.New().Bin(bin).Headless(c.display == nil).NoSandbox(true).Leakless(false).
		UserDataDir(dir).
		Set("disable-gpu").Set("disable-quic").Set("no-first-run").
		Set("disable-background-networking").Set("disable-component-update").
		Set("disable-sync").
		// Site isolation off unless asked for: rod's launcher turns it off
		// by default only from v0.116.1 on, and the module is tested on
		// v0.114.1 too, where cross-site iframes would run out of process.
		Set("disable-site-isolation-trials").
		// Names under .invalid fail to resolve inside Chrome, as they would
		// anywhere, without a DNS query leaving the machine.
		Set("host-resolver-rules", "MAP *.invalid ~NOTFOUND")
	if c.renderers > 0 {
		l = l.Set("renderer-process-limit", fmt.Sprint(c.renderers))
	}
	if c.isolated {
		l = l.Delete("disable-site-isolation-trials").Set("site-per-process")
	}
	if c.display != nil {
		// The launcher replaces the browser's environment with this one;
		// the test process's own is left alone.
		l = l.Env(headedEnv(c.display, c.home)...)
	}
	u, err := l.Launch()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("launch %s: %w", bin, err)
	}
	b := rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		l.Kill()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("connect to %s: %w", bin, err)
	}
	return &Browser{Browser: b, Launcher: l, URL: u, Home: c.home, dataDir: dir, display: c.display}, nil
}

// Bin returns the browser binary: $TABGUARD_BROWSER, or a system Chromium.
func Bin() (string, error) {
	if bin := os.Getenv(EnvBin); bin != "" {
		return bin, nil
	}
	bin, ok := launcher.LookPath()
	if !ok {
		return "", fmt.Errorf("no Chromium found: install the chromium package (make browser) or set %s", EnvBin)
	}
	return bin, nil
}

// Close ends the browser process and removes its user-data dir.
func (b *Browser) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = b.Browser.Context(ctx).Close()
	pid := b.Launcher.PID()
	killGroup(pid)
	waitExit(pid)
	_ = os.RemoveAll(b.dataDir)
	if b.display != nil { // LaunchHeaded's: its home and its display
		_ = os.RemoveAll(b.Home)
		b.display.Stop()
	}
}

// killGroup kills the browser's process group, its renderers with it, as
// rod's Launcher.Kill does. Launcher.Kill first sleeps a second, in case
// the browser is still starting its children; a test closes a browser that
// has long finished starting, and every test that closes one would wait
// that second for nothing.
func killGroup(pid int) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// waitExit waits up to two seconds for the process pid to be gone.
func waitExit(pid int) {
	for i := 0; i < 40; i++ {
		if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var shared struct {
	sync.Mutex
	b   *Browser
	err error
}

// Shared returns the browser shared by a test binary, launching it on first
// use; CloseShared ends it. It fails t when no browser can be launched.
func Shared(t testing.TB) *Browser {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.b == nil && shared.err == nil {
		shared.b, shared.err = Launch()
	}
	if shared.err != nil {
		t.Fatal(shared.err) // fail, never skip: CI must not go green untested
	}
	return shared.b
}

// isolated is the site-isolated browser shared by a test binary.
var isolated struct {
	sync.Mutex
	b   *Browser
	err error
}

// SharedIsolated is Shared for a browser with site isolation on
// (LaunchSiteIsolated); CloseShared ends it too.
func SharedIsolated(t testing.TB) *Browser {
	t.Helper()
	isolated.Lock()
	defer isolated.Unlock()
	if isolated.b == nil && isolated.err == nil {
		isolated.b, isolated.err = LaunchSiteIsolated()
	}
	if isolated.err != nil {
		t.Fatal(isolated.err)
	}
	return isolated.b
}

// CloseShared ends the shared browsers, headed too, if they were launched. TestMain
// calls it after the tests, before checking for leaked goroutines.
func CloseShared() {
	shared.Lock()
	if shared.b != nil {
		shared.b.Close()
		shared.b = nil
	}
	shared.Unlock()
	isolated.Lock()
	if isolated.b != nil {
		isolated.b.Close()
		isolated.b = nil
	}
	isolated.Unlock()
	closeHeaded()
}

// Page opens a new blank tab on the shared browser and closes it when t ends.
func Page(t testing.TB) *rod.Page {
	t.Helper()
	return NewPage(t, Shared(t))
}

// NewPage opens a new blank tab on b and closes it when t ends. On a
// headed browser the tab opens in a window of its own: tests share the
// browser, and a tab another test's tab sent to the background is hidden,
// where Chrome opens no file chooser and shows no prompt.
func NewPage(t testing.TB, b *Browser) *rod.Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	target, err := proto.TargetCreateTarget{URL: "about:blank", NewWindow: b.display != nil}.Call(b.Context(ctx))
	if err != nil {
		t.Fatalf("open tab: %v", err)
	}
	// Attach without a deadline: rod derives the page's session context,
	// which it cancels when the tab closes, from the browser's.
	p, err := b.PageFromTarget(target.TargetID)
	if err != nil {
		t.Fatalf("attach to tab: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: p.TargetID}.Call(b.Context(ctx))
	})
	return p
}

// Context returns a context that ends after d or when t ends, whichever is
// first: every browser call in a test runs under one, so a bug fails the
// test instead of stalling the run. It has no deadline of its own
// (testctx.Within), so a watcher's call under it is bounded by the
// watcher's eval timeout.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	return testctx.Within(t, context.Background(), d)
}

// DeadURL returns an http URL on 127.0.0.1 at a port nothing listens on, so
// loading it fails with net::ERR_CONNECTION_REFUSED. (Port 1 would not do:
// Chrome blocks it as ERR_UNSAFE_PORT.)
func DeadURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/"
}
