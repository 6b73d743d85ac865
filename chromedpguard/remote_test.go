package chromedpguard_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// remoteChromium is a Chromium process started on its own, listening for
// DevTools on a free port of 127.0.0.1, as a browser in a pool runs.
type remoteChromium struct {
	cmd   *exec.Cmd
	dir   string // its user-data dir
	wsURL string
	host  string // 127.0.0.1:port
}

var devToolsLine = regexp.MustCompile(`^DevTools listening on (ws://(127\.0\.0\.1:\d+)/devtools/browser/\S+)`)

// shared is the Chromium the pool tests share, started on first use
// (sharedRemote) and ended by TestMain: each test puts its faults on a
// proxy of its own, between its watcher and the browser, which they leave
// running.
var shared struct {
	sync.Mutex
	r   *remoteChromium
	err error
}

// sharedRemote returns the Chromium the pool tests share, starting it on
// first use.
func sharedRemote(t *testing.T) *remoteChromium {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.r == nil && shared.err == nil {
		shared.r, shared.err = startRemoteChromium()
	}
	if shared.err != nil {
		t.Fatal("start Chromium for the pool tests: ", shared.err) // fail, never skip
	}
	return shared.r
}

// closeRemote ends the shared remote Chromium, if it was started.
func closeRemote() error {
	shared.Lock()
	defer shared.Unlock()
	if shared.r == nil {
		return nil
	}
	err := shared.r.kill()
	shared.r = nil
	return err
}

// startRemoteChromium starts headless Chromium in its own process group
// and returns once it prints its DevTools URL, within 20 s.
func startRemoteChromium() (*remoteChromium, error) {
	bin := os.Getenv("TABGUARD_BROWSER")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("chromium"); err != nil {
			return nil, fmt.Errorf("no Chromium found: install the chromium package or set TABGUARD_BROWSER: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "tabguard-remote-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--user-data-dir="+dir,
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so kill reaches its helpers too
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	r := &remoteChromium{cmd: cmd, dir: dir}
	found := make(chan []string, 1)
	go func() { // ends when the process closes stderr, at exit
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devToolsLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m:
				default:
				}
			}
		}
	}()
	select {
	case m := <-found:
		r.wsURL, r.host = m[1], m[2]
		return r, nil
	case <-time.After(20 * time.Second):
		return nil, errors.Join(errors.New("chromium printed no DevTools URL within 20s"), r.kill())
	}
}

// kill ends the process group, reaps the browser and removes its
// user-data dir.
func (r *remoteChromium) kill() error {
	defer os.RemoveAll(r.dir)
	if err := syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill Chromium %d: %w", r.cmd.Process.Pid, err)
	}
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("chromium %d still running 5s after SIGKILL", r.cmd.Process.Pid)
	}
}

// poolFixture is a real Chromium behind a faultproxy.Proxy, reached through
// NewRemoteAllocator, with one loaded tab watched through a BrowserWatcher.
type poolFixture struct {
	proxy  *faultproxy.Proxy
	remote *remoteChromium
	tab    context.Context
	w      *chromedpguard.Watcher
}

func newPoolFixture(t *testing.T, opts *chromedpguard.Options, configure func(*faultproxy.Proxy)) *poolFixture {
	t.Helper()
	return newPoolFixtureWith(t, opts, nil, configure)
}

// newPoolFixtureWith is newPoolFixture with the allocator's options.
func newPoolFixtureWith(t *testing.T, opts *chromedpguard.Options, copts *chromedpguard.ConnectOptions, configure func(*faultproxy.Proxy)) *poolFixture {
	t.Helper()
	remote := sharedRemote(t)
	f := &poolFixture{proxy: faultproxy.Start(t, remote.host, configure), remote: remote}
	actx, cancelAlloc := chromedpguard.NewRemoteAllocatorWith(context.Background(), f.proxy.URL(remote.wsURL), copts)
	t.Cleanup(cancelAlloc)
	tab, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab), "connect and open a tab")
	f.tab = tab
	bw, err := chromedpguard.WatchBrowser(tab, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	f.w, err = bw.Watch(tab)
	require.NoError(t, err)
	// Loaded by chromedp, not the watcher, whose eval timeout the test
	// may set short: the fixture's load is not what is under test.
	ctx, cancelLoad := context.WithTimeout(tab, 20*time.Second)
	defer cancelLoad()
	_, err = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: serve(t).URL})
	require.NoError(t, err)
	_, err = f.w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	return f
}

func TestRemoteFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		heartbeat time.Duration
		fault     func(p *faultproxy.Proxy)
		reason    string // the GoneReason the watchers report; a heartbeat's bound may be longer
	}{
		{"silent proxy, heartbeat 1s", time.Second, (*faultproxy.Proxy).StallAll, "no answer from the browser for 1s"},
		{"close frame", 0, func(p *faultproxy.Proxy) { p.SendAll(faultproxy.CloseFrame(1008, "session timed out")) },
			`close frame 1008 "session timed out"`},
		{"HTTP 408 written into the socket", 0, func(p *faultproxy.Proxy) {
			p.SendAll([]byte("HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain\r\n\r\nRequest Timeout"))
		}, `not a WebSocket frame: "HTTP/1.1 408 Request Timeout"`},
		{"reset", 0, (*faultproxy.Proxy).ResetAll, "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Without resuming (TestResumeInFlight resumes a reset): a
			// close frame and bytes that are no frame end the session
			// whatever the option says.
			f := newPoolFixtureWith(t, &chromedpguard.Options{EvalTimeout: time.Minute, Heartbeat: tt.heartbeat},
				&chromedpguard.ConnectOptions{Resume: -1}, nil)
			done := make(chan error, 1)
			go func() {
				_, err := f.w.Eval(within(t, time.Minute), `() => new Promise(() => {})`)
				done <- err
			}()
			time.Sleep(300 * time.Millisecond) // let it reach the page
			start := time.Now()
			tt.fault(f.proxy)
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the eval in flight did not answer within 30s")
			}
			elapsed := time.Since(start)
			require.ErrorIs(t, err, chromedpguard.ErrBrowserGone, "the eval in flight")
			reason := tt.reason
			if tt.heartbeat > 0 {
				reason = faultrows.HeartbeatMiss(t, f.w.State().GoneReason, tt.heartbeat)
			}
			assert.Equal(t, "browser is gone ("+reason+"): reconnect to or relaunch the browser", err.Error())
			_, err = f.w.Eval(within(t, 5*time.Second), `() => 1`)
			require.ErrorIs(t, err, chromedpguard.ErrBrowserGone, "a new eval")
			assert.Contains(t, err.Error(), reason)
			// chromedp's own call on the tab context: it has the reason too,
			// or the bare context.Canceled of a context chromedp cancelled;
			// over a silent connection that is still open, it waits out its
			// deadline.
			cctx, cancel := context.WithTimeout(f.tab, 2*time.Second)
			defer cancel()
			_, cerr := chromedp.CallBrowser(cctx, browser.GetVersion, cdp.Empty{})
			t.Logf("in flight: %v after %v; a plain chromedp call after: %v", err, elapsed.Round(time.Millisecond), cerr)
		})
	}
}

// A pool that closes connections with no client traffic for 3 s keeps a
// watcher's connection open when it beats every second.
func TestHeartbeatKeepsIdleSessionAlive(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t, &chromedpguard.Options{Heartbeat: time.Second}, nil)
	f.proxy.ReapIdle(3 * time.Second)
	time.Sleep(8 * time.Second) // idle, but for the heartbeat
	res, err := f.w.Eval(within(t, 5*time.Second), `() => 6 * 7`)
	require.NoError(t, err)
	assert.Equal(t, "42", string(res.Value))
}

// With no heartbeat, a silent connection is noticed by no one: an eval
// waits out its deadline and says what it probed, and nothing hangs.
func TestSilentConnectionWithoutHeartbeat(t *testing.T) {
	t.Parallel()
	// The probes need the patience (1 s), or three of the link's round
	// trips, to prove the silence, and get at most three quarters of the
	// call's time.
	f := newPoolFixture(t, &chromedpguard.Options{EvalTimeout: 3 * time.Second}, nil)
	f.proxy.StallAll()
	// Closed with the connection still silent, the watcher and chromedp
	// would each wait out their bounds to hand back and close the tab.
	defer f.proxy.ResetAll()
	_, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrEvalTimeout)
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 3*time.Second, te.Limit, "the eval's own deadline, not the test's")
	assert.Equal(t, chromedpguard.TimeoutSilent, te.Cause)
	assert.Contains(t, err.Error(), "nothing answered, not even the browser process")
	assert.Contains(t, err.Error(), "Options.Heartbeat")
}

// The handshake is bounded by the first Run's context: a pool that queues
// the connection and never admits it gets its socket closed.
func TestRemoteHandshakeBounded(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, "127.0.0.1:1", func(p *faultproxy.Proxy) { p.Queue = true })
	actx, cancelAlloc := chromedpguard.NewRemoteAllocator(context.Background(), "ws://"+p.Addr()+"/devtools/browser/x?token=secret")
	defer cancelAlloc()
	tab, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelRun := context.WithTimeout(tab, time.Second)
	defer cancelRun()
	err := chromedp.Do(ctx)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "err: %v", err)
	assert.NotContains(t, err.Error(), "secret", "the token stays out of errors")
	select {
	case <-p.Closed:
	case <-time.After(2 * time.Second):
		t.Fatal("the queued socket was not closed")
	}
}

// An http:// endpoint is resolved through /json/version.
func TestRemoteHTTPEndpoint(t *testing.T) {
	t.Parallel()
	remote := sharedRemote(t)
	actx, cancelAlloc := chromedpguard.NewRemoteAllocator(context.Background(), "http://"+remote.host)
	defer cancelAlloc()
	tab, cancel := chromedp.NewContext(actx)
	defer cancel()
	require.NoError(t, chromedp.Do(tab))
	res, err := chromedp.CallBrowser(tab, browser.GetVersion, cdp.Empty{})
	require.NoError(t, err)
	assert.True(t, strings.Contains(res.Product, "Chrome"), res.Product)
}
