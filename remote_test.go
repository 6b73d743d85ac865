package tabguard_test

import (
	"bufio"
	"errors"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// A Watcher needs nothing of rod's launcher: it works the same over a
// browser reached by its DevTools URL, as one in a pool or on another host
// is. This test starts Chromium as its own process, the way such a browser
// runs, and connects with rod.New().ControlURL(wsURL).
func TestWatcherOnRemoteBrowser(t *testing.T) {
	t.Parallel()
	remote := startRemoteChromium(t)
	b := rod.New().ControlURL(remote.wsURL)
	require.NoError(t, b.Connect())     // the browser is up: it printed its URL
	t.Cleanup(func() { _ = b.Close() }) // the process is killed below: nothing to close then

	srv := serve(t)
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(b.Context(testbrowser.Context(t, 10*time.Second)))
	require.NoError(t, err)
	page, err := b.PageFromTarget(target.TargetID)
	require.NoError(t, err)
	require.NoError(t, navigate(t, page, srv.URL))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())

	w := watch(t, page, nil)
	res, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => document.title`)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Value.Str())

	crash(t, page)
	eventually(t, "the crash", blockedBy(t, w, tabguard.ErrTabCrashed))
	_, err = w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrTabCrashed)

	// Recover the tab, then lose the whole remote browser under it.
	require.NoError(t, proto.PageReload{}.Call(page.Context(testbrowser.Context(t, 10*time.Second))))
	eventually(t, "the recovery", func() bool { return w.Blocked(testbrowser.Context(t, 5*time.Second)) == nil })

	remote.kill(t)
	start := time.Now()
	eventually(t, "the browser to be gone", func() bool {
		_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
		return errors.Is(err, tabguard.ErrBrowserGone)
	})
	t.Logf("gone %v after the kill", time.Since(start))
	err = w.Blocked(testbrowser.Context(t, 5*time.Second))
	assert.Regexp(t, `^browser is gone \(.+\): reconnect to or relaunch the browser$`, err.Error())
}

// remoteChromium is a Chromium process started without rod's launcher.
type remoteChromium struct {
	cmd   *exec.Cmd
	wsURL string
}

var devToolsLine = regexp.MustCompile(`^DevTools listening on (ws://127\.0\.0\.1:\d+/devtools/browser/\S+)`)

// startRemoteChromium starts headless Chromium in its own process group,
// listening for DevTools on a free port of 127.0.0.1, and returns once it
// prints its DevTools URL. The process group is killed when t ends.
func startRemoteChromium(t *testing.T) *remoteChromium {
	t.Helper()
	bin, err := testbrowser.Bin()
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--user-data-dir="+dir,
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so kill reaches its helpers too
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := &remoteChromium{cmd: cmd}
	t.Cleanup(func() { r.kill(t) })

	found := make(chan string, 1)
	go func() { // ends when the process closes stderr, at exit
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devToolsLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default: // printed again: the first one is taken
				}
			}
		}
	}()
	select {
	case r.wsURL = <-found:
	case <-time.After(20 * time.Second):
		t.Fatal("Chromium printed no DevTools URL within 20s")
	}
	return r
}

// kill ends the process group and reaps the browser. It may run twice.
func (r *remoteChromium) kill(t *testing.T) {
	t.Helper()
	if r.cmd.ProcessState != nil {
		return
	}
	if err := syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill Chromium %d: %v", r.cmd.Process.Pid, err)
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done: // "signal: killed", as intended
	case <-time.After(5 * time.Second):
		t.Errorf("Chromium %d still running 5s after SIGKILL", r.cmd.Process.Pid)
	}
}
