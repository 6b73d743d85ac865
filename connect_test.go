package tabguard_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// poolFixture is a real Chromium behind a faultproxy.Proxy, reached with Connect,
// with one loaded tab watched through a BrowserWatcher.
type poolFixture struct {
	proxy  *faultproxy.Proxy
	remote *remoteChromium
	page   *rod.Page // the watched tab's own rod page
	b      *rod.Browser
	bw     *tabguard.BrowserWatcher
	w      *tabguard.Watcher
}

func newPoolFixture(t *testing.T, opts *tabguard.Options, configure func(*faultproxy.Proxy)) *poolFixture {
	t.Helper()
	return newPoolFixtureWith(t, opts, nil, configure)
}

// newPoolFixtureWith is newPoolFixture with Connect's options.
func newPoolFixtureWith(t *testing.T, opts *tabguard.Options, copts *tabguard.ConnectOptions, configure func(*faultproxy.Proxy)) *poolFixture {
	t.Helper()
	remote := startRemoteChromium(t)
	host := strings.TrimPrefix(remote.wsURL, "ws://")
	host = host[:strings.IndexByte(host, '/')]
	f := &poolFixture{proxy: faultproxy.Start(t, host, configure), remote: remote}
	var err error
	f.b, err = tabguard.ConnectWith(testbrowser.Context(t, 10*time.Second), f.proxy.URL(remote.wsURL), copts)
	require.NoError(t, err)
	// Closed before Chromium is killed: a connection that resumes would
	// dial a killed browser for its window.
	t.Cleanup(func() { _ = f.b.Timeout(10 * time.Second).Close() })
	f.bw = watchBrowser(t, f.b, opts)
	ctx := testbrowser.Context(t, 20*time.Second)
	target, err := proto.TargetCreateTarget{URL: serve(t).URL}.Call(f.b.Context(ctx))
	require.NoError(t, err)
	page, err := f.b.PageFromTarget(target.TargetID)
	require.NoError(t, err)
	f.page = page
	f.w, err = f.bw.Watch(page)
	require.NoError(t, err)
	_, err = f.w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	return f
}

// inFlight starts an eval that never settles and returns a func that waits
// for its error.
func (f *poolFixture) inFlight(t *testing.T) func() (time.Time, error) {
	type answer struct {
		err error
		at  time.Time
	}
	done := make(chan answer, 1)
	go func() {
		_, err := f.w.Eval(testbrowser.Context(t, time.Minute), `() => new Promise(() => {})`)
		done <- answer{err, time.Now()}
	}()
	time.Sleep(300 * time.Millisecond) // let it reach the page
	return func() (time.Time, error) {
		select {
		case a := <-done:
			return a.at, a.err
		case <-time.After(30 * time.Second):
			t.Fatal("the eval in flight did not answer within 30s")
			return time.Time{}, nil
		}
	}
}

func TestConnectFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		heartbeat time.Duration
		fault     func(p *faultproxy.Proxy)
		reason    string // the GoneReason the watchers report; a heartbeat's bound may be longer
	}{
		{"silent proxy, heartbeat 1s", time.Second, (*faultproxy.Proxy).StallAll,
			"no answer from the browser for 1s"},
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
			f := newPoolFixtureWith(t, &tabguard.Options{EvalTimeout: time.Minute, Heartbeat: tt.heartbeat},
				&tabguard.ConnectOptions{Resume: -1}, nil)
			wait := f.inFlight(t)
			start := time.Now()
			tt.fault(f.proxy)
			at, err := wait()
			require.ErrorIs(t, err, tabguard.ErrBrowserGone, "the eval in flight")
			reason := tt.reason
			if tt.heartbeat > 0 {
				reason = faultrows.HeartbeatMiss(t, f.w.State().GoneReason, tt.heartbeat)
			}
			assert.Equal(t, "browser is gone ("+reason+"): reconnect to or relaunch the browser", err.Error())
			t.Logf("answered %v after the fault", at.Sub(start))
			_, err = f.w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrBrowserGone, "a new eval")
			assert.Contains(t, err.Error(), reason)
			s := f.w.State()
			assert.True(t, s.BrowserGone)
			assert.Equal(t, reason, s.GoneReason)
		})
	}
}

// rod's own transport panics on the 408 text; through rod's transport a
// reset in flight is still ErrBrowserGone, not a raw *net.OpError.
func TestResetOnRodTransport(t *testing.T) {
	t.Parallel()
	remote := startRemoteChromium(t)
	host := strings.TrimPrefix(remote.wsURL, "ws://")
	p := faultproxy.Start(t, host[:strings.IndexByte(host, '/')], nil)
	b := rod.New().ControlURL(p.URL(remote.wsURL))
	require.NoError(t, b.Connect())
	w := watch(t, testbrowser.NewPage(t, &testbrowser.Browser{Browser: b}), &tabguard.Options{EvalTimeout: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := w.Eval(testbrowser.Context(t, time.Minute), `() => new Promise(() => {})`)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	p.ResetAll()
	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrBrowserGone)
		assert.Contains(t, err.Error(), "browser is gone (")
	case <-time.After(10 * time.Second):
		t.Fatal("the eval did not answer within 10s of the reset")
	}
}

// Without a heartbeat and without resuming, the same pool closes the idle
// connection, and the next eval says the browser is gone: what the
// heartbeat test keeps from happening does happen. (A connection that
// resumes dials again: TestResumeReaped.)
func TestIdleSessionReapedWithoutHeartbeat(t *testing.T) {
	t.Parallel()
	f := newPoolFixtureWith(t, nil, &tabguard.ConnectOptions{Resume: -1}, nil)
	f.proxy.ReapIdle(time.Second)
	time.Sleep(3 * time.Second) // idle
	_, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrBrowserGone)
}

// A pool that closes connections with no client traffic for 3 s keeps a
// watcher's connection open when it beats every second.
func TestHeartbeatKeepsIdleSessionAlive(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t, &tabguard.Options{Heartbeat: time.Second}, nil)
	f.proxy.ReapIdle(3 * time.Second)
	time.Sleep(8 * time.Second) // idle, but for the heartbeat
	res, err := f.w.Eval(testbrowser.Context(t, 5*time.Second), `() => 6 * 7`)
	require.NoError(t, err)
	assert.Equal(t, 42, res.Value.Int())
}

// With no heartbeat, a silent connection is noticed by no one: an eval
// waits out its deadline and says what it probed, and nothing hangs.
func TestSilentConnectionWithoutHeartbeat(t *testing.T) {
	t.Parallel()
	// The probes need the patience (1 s), or three of the link's round
	// trips, to prove the silence, and get at most three quarters of the
	// call's time.
	f := newPoolFixture(t, &tabguard.Options{EvalTimeout: 3 * time.Second}, nil)
	f.proxy.StallAll()
	// Closed with the connection still silent, the watcher would wait out
	// its bound to hand the tab back.
	defer f.proxy.ResetAll()
	start := time.Now()
	_, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 3*time.Second, te.Limit, "the eval's own deadline ended it")
	assert.Equal(t, tabguard.TimeoutSilent, te.Cause)
	t.Logf("answered in %v", time.Since(start))
	assert.Contains(t, err.Error(), "nothing answered, not even the browser process")
	assert.Contains(t, err.Error(), "Options.Heartbeat")
}

// Connect honours its context through the whole handshake: a pool that
// queues the connection and never admits it gets its socket closed.
func TestConnectQueueNeverAdmits(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, "127.0.0.1:1", func(p *faultproxy.Proxy) { p.Queue = true })
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := tabguard.Connect(ctx, "ws://"+p.Addr()+"/devtools/browser/x?token=secret")
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "err: %v", err)
	t.Logf("gave up in %v", time.Since(start))
	assert.NotContains(t, err.Error(), "secret", "the token stays out of errors")
	select {
	case <-p.Closed:
	case <-time.After(2 * time.Second):
		t.Fatal("the queued socket was not closed")
	}
}

func TestConnectBadURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "127.0.0.1:9222", "ftp://host/x", "ws://"} {
		_, err := tabguard.Connect(context.Background(), u)
		assert.ErrorIs(t, err, tabguard.ErrInvalidArgument, "Connect(%q)", u)
	}
}

// Connect resolves an http:// endpoint through /json/version.
func TestConnectHTTPEndpoint(t *testing.T) {
	t.Parallel()
	remote := startRemoteChromium(t)
	host := strings.TrimPrefix(remote.wsURL, "ws://")
	b, err := tabguard.Connect(testbrowser.Context(t, 10*time.Second), "http://"+host[:strings.IndexByte(host, '/')])
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Timeout(10 * time.Second).Close() })
	res, err := proto.BrowserGetVersion{}.Call(b.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
	assert.Contains(t, res.Product, "Chrome")
}

// ownTransport is a program's own transport for rod, as a program writes
// one on github.com/coder/websocket: it knows nothing of the package.
type ownTransport struct{ c *websocket.Conn }

func (t ownTransport) Send(b []byte) error {
	return t.c.Write(context.Background(), websocket.MessageText, b)
}

func (t ownTransport) Read() ([]byte, error) {
	_, b, err := t.c.Read(context.Background())
	return b, err
}

// A rod browser on a transport of the program's own, ended by a close
// frame: the eval in flight answers ErrBrowserGone with the frame's code
// and reason, and every later refusal carries that first reason, not a
// vaguer later one.
func TestCloseFrameOnOwnTransport(t *testing.T) {
	t.Parallel()
	remote := startRemoteChromium(t)
	host := strings.TrimPrefix(remote.wsURL, "ws://")
	p := faultproxy.Start(t, host[:strings.IndexByte(host, '/')], nil)
	conn, _, err := websocket.Dial(testbrowser.Context(t, 10*time.Second), p.URL(remote.wsURL), nil)
	require.NoError(t, err)
	conn.SetReadLimit(-1)
	t.Cleanup(func() { _ = conn.CloseNow() })
	b := rod.New().Client(cdp.New().Start(ownTransport{conn}))
	require.NoError(t, b.Connect())
	w := watch(t, testbrowser.NewPage(t, &testbrowser.Browser{Browser: b}), &tabguard.Options{EvalTimeout: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := w.Eval(testbrowser.Context(t, time.Minute), `() => new Promise(() => {})`)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let it reach the page
	p.SendAll(faultproxy.CloseFrame(1011, "session timeout"))
	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrBrowserGone, "the eval in flight: %v", err)
		require.ErrorContains(t, err, `StatusInternalError and reason = "session timeout"`, "the eval in flight")
	case <-time.After(10 * time.Second):
		t.Fatal("the eval did not answer within 10s of the close frame")
	}
	for range 3 {
		_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
		require.ErrorIs(t, err, tabguard.ErrBrowserGone)
		assert.Contains(t, err.Error(), `"session timeout"`, "a later refusal carries the first reason")
	}
	assert.Contains(t, w.State().GoneReason, `"session timeout"`)
}

// opaqueTransport is a program's own transport whose errors are of a type
// of its own, telling nothing but their text.
type opaqueTransport struct{ ownTransport }

type transportError struct{ text string }

func (e *transportError) Error() string { return e.text }

func (t opaqueTransport) Read() ([]byte, error) {
	b, err := t.ownTransport.Read()
	if err != nil {
		return nil, &transportError{"socket gone: " + err.Error()}
	}
	return b, nil
}

// A connection that ends is the browser's loss whatever type the
// transport's error has: the eval in flight answers ErrBrowserGone with
// the transport's words, not the raw error.
func TestLossOnOpaqueTransport(t *testing.T) {
	t.Parallel()
	remote := startRemoteChromium(t)
	host := strings.TrimPrefix(remote.wsURL, "ws://")
	p := faultproxy.Start(t, host[:strings.IndexByte(host, '/')], nil)
	conn, _, err := websocket.Dial(testbrowser.Context(t, 10*time.Second), p.URL(remote.wsURL), nil)
	require.NoError(t, err)
	conn.SetReadLimit(-1)
	t.Cleanup(func() { _ = conn.CloseNow() })
	b := rod.New().Client(cdp.New().Start(opaqueTransport{ownTransport{conn}}))
	require.NoError(t, b.Connect())
	w := watch(t, testbrowser.NewPage(t, &testbrowser.Browser{Browser: b}), &tabguard.Options{EvalTimeout: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := w.Eval(testbrowser.Context(t, time.Minute), `() => new Promise(() => {})`)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let it reach the page
	p.CutAll()
	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrBrowserGone, "the eval in flight: %v", err)
		var te *transportError
		assert.False(t, errors.As(err, &te), "not the raw error")
		assert.Contains(t, err.Error(), "socket gone: ")
	case <-time.After(10 * time.Second):
		t.Fatal("the eval did not answer within 10s of the cut")
	}
}

// Disconnect takes only a browser Connect returned, once.
func TestDisconnectBadInput(t *testing.T) {
	t.Parallel()
	require.ErrorIs(t, tabguard.Disconnect(nil), tabguard.ErrInvalidArgument)
	require.ErrorIs(t, tabguard.Disconnect(rod.New()), tabguard.ErrInvalidArgument)
	f := newPoolFixture(t, nil, nil)
	require.NoError(t, tabguard.Disconnect(f.b))
	require.ErrorIs(t, tabguard.Disconnect(f.b), tabguard.ErrInvalidArgument)
	_, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrBrowserGone)
	assert.Equal(t, 1, f.proxy.Accepted(), "a disconnect is not resumed")
}
