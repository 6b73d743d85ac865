package tabguard

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/internal/engine"
)

// ConnectionError reports that the connection to the browser ended, and
// why: a close frame (its code and text), bytes that are not a WebSocket
// frame or not CDP JSON (the first of them, quoted), a reset, or a
// heartbeat that went unanswered. It matches [ErrBrowserGone]. Its Reason
// field says why, such as `close frame 1008 "session timed out"` or
// `not a WebSocket frame: "HTTP/1.1 408 Request Timeout"`.
type ConnectionError = cdpws.ConnectionError

// transport puts rod's client (cdp.WebSocketable) on a cdpws connection,
// whose reader never hands rod anything but CDP JSON. It hands every
// message to the BrowserWatchers of the browser before rod reads it, on
// rod's reading goroutine, so a watcher has applied the events Chrome sent
// before a reply by the time the reply reaches its caller: on a browser
// from [Connect], a refusal needs no barrier (sync.go).
type transport struct {
	conn *cdpws.Resumer

	mu      sync.Mutex
	intakes []*intake
}

var _ cdp.WebSocketable = (*transport)(nil)

// Send writes one text message; rod sends only text.
func (t *transport) Send(data []byte) error { return t.conn.WriteText(data) }

// Read returns the next message or the error that ended the connection,
// once every intake has taken it in.
func (t *transport) Read() ([]byte, error) {
	data, err := t.conn.ReadText()
	for _, in := range t.live() {
		in.take(data, err)
	}
	return data, err
}

// dropped and resumed hand a drop and a resume of the connection to the
// engines, on rod's reading goroutine, before the messages that follow.
func (t *transport) dropped(reason string) {
	for _, in := range t.live() {
		if eng := in.eng.Load(); eng != nil {
			eng.Dropped(reason)
		}
	}
}

func (t *transport) resumed(r cdpws.Resume) {
	for _, in := range t.live() {
		if eng := in.eng.Load(); eng != nil {
			eng.Resumed(r.Took)
		}
	}
}

// live returns the intakes not closed, and forgets the others.
func (t *transport) live() []*intake {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, in := range t.intakes {
		if !in.closed.Load() {
			t.intakes[n] = in
			n++
		}
	}
	clear(t.intakes[n:])
	t.intakes = t.intakes[:n]
	return t.intakes
}

// subscribeMethod is the call that hands a transport an intake: a client
// of the package's own takes it (client.Call); rod's own client sends it
// to Chrome, which answers, and the intake stays untaken.
const subscribeMethod = "Browser.getVersion"

// intake is a BrowserWatcher's subscription to the messages of a transport
// the package owns. It has no exported field, so rod's own client sends it
// as {}.
type intake struct {
	taken  atomic.Bool                    // a transport took it
	closed atomic.Bool                    // its BrowserWatcher closed
	eng    atomic.Pointer[engine.Browser] // set once the engine exists
}

// take hands one message, or the error that ended the connection, to the
// engine.
func (in *intake) take(data []byte, err error) {
	eng := in.eng.Load()
	switch {
	case eng == nil:
	case err != nil:
		reason, _ := cdpws.LostReason(err)
		if reason == "" {
			reason = err.Error()
		}
		eng.Disconnected(reason)
	default:
		eng.Message(data)
	}
}

// client is rod's CDP client on a transport of the package's own: it
// takes a BrowserWatcher's intake itself and sends every other call.
type client struct {
	*cdp.Client
	t *transport
}

// Call takes an intake, or sends the call, noting its method for the
// guarded call that sends it (Watcher.Do), which a timeout then names.
func (c client) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	if s := engine.StepsOf(ctx); s != nil {
		s.Sent(method)
	}
	if in, ok := params.(*intake); ok && method == subscribeMethod {
		in.taken.Store(true)
		c.t.mu.Lock()
		c.t.intakes = append(c.t.intakes, in)
		c.t.mu.Unlock()
		return []byte("{}"), nil
	}
	return c.Client.Call(ctx, sessionID, method, params)
}
