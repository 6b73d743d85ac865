package cdpws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Resumer is a DevTools connection that outlives a drop while the browser
// lives on, as a browser pool's connections drop: when the socket ends
// (not by Close), it dials the same endpoint again for up to its window,
// checks that the same browser answers, attaches again to every session's
// target, sends each session the settings it had been sent (the domains
// enabled, auto-attach, target discovery, download and permission
// policies, scripts to run on new documents: see setupKey), and carries on.
// The driver above it keeps its session IDs: they are translated both
// ways. A call in flight at the drop is answered, once the outcome is
// known, with an error reply that says the connection dropped and was
// resumed; calls sent during the gap wait and go out after the resume.
// A target that went away during the gap is told to the driver as
// Target.detachedFromTarget and Target.targetDestroyed; a renderer that
// crashed, by Chrome's own Inspector.targetCrashed, which the settings
// sent again ask for.
//
// When the window passes, or the endpoint answers that the browser is not
// there (HTTP 404 or 410) or another browser answers, ReadText returns a
// [*ConnectionError] with the drop's reason and the last try's, as a plain
// [Conn] does at the drop.
//
// Its methods are safe for concurrent use, but for ReadText, which one
// reader calls.
type Resumer struct {
	dial   func(ctx context.Context) (*Conn, error)
	window time.Duration
	// staleObjects says a resumed session's "Could not find object with
	// given id" to Runtime.callFunctionOn reads as Chrome's "Cannot find
	// context with specified id": rod keeps the window object of a page's
	// session and looks it up again on that error.
	staleObjects bool
	life         context.Context // ends with Close
	stop         context.CancelFunc

	inbox [][]byte // messages for the reader to return first; the reader's own

	mu      sync.Mutex
	conn    *Conn
	down    bool     // resuming
	queue   [][]byte // the driver's messages sent while down, as it sent them
	final   error    // set once the connection ended for good
	resumes int
	subs    map[int]*ResumeHooks
	nextSub int
	book    book
}

// ResumeHooks are told of a Resumer's drops and resumes, on the reader's
// goroutine before the driver reads anything more: Dropped as the drop is
// seen, Resumed once the sessions are attached again, before the calls in
// flight at the drop are answered.
type ResumeHooks struct {
	Dropped func(reason string)
	Resumed func(Resume)
}

// Resume tells of one resume.
type Resume struct {
	// Took is the time from the drop to the sessions attached again.
	Took time.Duration
	// Tries is the number of dials.
	Tries int
	// Sessions is the number of sessions attached again; Gone, of those
	// whose target went away during the gap.
	Sessions, Gone int
	// Reason is the drop's.
	Reason string
}

// ResumeOptions says how a [Resumer] resumes.
type ResumeOptions struct {
	// Window is how long it tries after a drop; zero or less: it does
	// not, and a drop ends the connection.
	Window time.Duration
	// StaleObjects: see Resumer.staleObjects.
	StaleObjects bool
}

// DefaultResume is how long a dropped connection is dialed again by
// default: 30 s, the time browserless keeps a browser for a client to
// come back, the shortest such window of the pools.
const DefaultResume = 30 * time.Second

// Window is the window of an option d: zero means DefaultResume, a
// negative value none.
func Window(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultResume
	case d < 0:
		return 0
	}
	return d
}

// NewResumer dials wsURL with header within ctx, as [Dial] does, and
// returns the connection, which dials the same way to resume.
func NewResumer(ctx context.Context, wsURL string, header http.Header, opts ResumeOptions) (*Resumer, error) {
	header = header.Clone()
	dial := func(ctx context.Context) (*Conn, error) { return Dial(ctx, wsURL, header) }
	conn, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	life, stop := context.WithCancel(context.Background())
	r := &Resumer{dial: dial, window: opts.Window, staleObjects: opts.StaleObjects, life: life, stop: stop, conn: conn,
		subs: map[int]*ResumeHooks{}, book: newBook()}
	if r.window > 0 {
		// The browser's default context, to tell it from another browser
		// at a resume: asked with the driver's first calls, its reply is
		// the Resumer's own.
		if err := conn.WriteText(r.book.ownCall("", identityMethod, nil)); err != nil {
			stop()
			_ = conn.Close()
			return nil, err
		}
	}
	return r, nil
}

// Subscribe adds hooks; the returned func removes them.
func (r *Resumer) Subscribe(h ResumeHooks) (unsubscribe func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.nextSub
	r.nextSub++
	r.subs[id] = &h
	return func() {
		r.mu.Lock()
		delete(r.subs, id)
		r.mu.Unlock()
	}
}

// Resumes is the number of resumes so far.
func (r *Resumer) Resumes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resumes
}

// WriteText sends one message of the driver's, or holds it while the
// connection resumes.
func (r *Resumer) WriteText(data []byte) error {
	if r.window <= 0 {
		return r.conn.WriteText(data) // r.conn never changes
	}
	r.mu.Lock()
	if r.final != nil {
		err := r.final
		r.mu.Unlock()
		return err
	}
	r.book.sent(data, r.down)
	if r.down {
		r.queue = append(r.queue, data)
		r.mu.Unlock()
		return nil
	}
	conn, out := r.conn, r.book.outgoing(data)
	r.mu.Unlock()
	err := conn.WriteText(out)
	if err != nil && r.window > 0 && !r.closing() {
		// The reader sees the drop too; the call is answered once the
		// resume's outcome is known.
		return nil
	}
	return err
}

// ReadText returns the next message for the driver, or the error that
// ended the connection for good.
func (r *Resumer) ReadText() ([]byte, error) {
	if r.window <= 0 {
		return r.conn.ReadText()
	}
	for {
		if len(r.inbox) > 0 {
			data := r.inbox[0]
			r.inbox[0] = nil
			r.inbox = r.inbox[1:]
			return data, nil
		}
		r.mu.Lock()
		conn, final := r.conn, r.final
		r.mu.Unlock()
		if final != nil {
			return nil, final // ended for good: no resume after
		}
		data, err := conn.ReadText()
		if err == nil {
			r.mu.Lock()
			out, keep := r.book.incoming(data, r.staleObjects && r.resumes > 0)
			send, tell := r.book.toSend, r.book.toDriver
			r.book.toSend, r.book.toDriver = nil, nil
			r.mu.Unlock()
			for _, m := range send {
				if conn.WriteText(m) != nil {
					break // the next read sees the drop
				}
			}
			if keep {
				tell = append([][]byte{out}, tell...)
			}
			if len(tell) > 0 {
				r.inbox = append(r.inbox, tell...)
			}
			continue
		}
		if r.window <= 0 || r.closing() || r.closed() || !resumable(err) {
			r.end(err)
			return nil, err
		}
		if err := r.resume(err); err != nil {
			return nil, err
		}
	}
}

// Close ends the connection, and a resume under way.
func (r *Resumer) Close() error {
	r.mu.Lock()
	r.stop()
	conn := r.conn
	if r.final == nil {
		r.final = &ConnectionError{Reason: "closed by the program"}
	}
	r.mu.Unlock()
	return conn.Close()
}

func (r *Resumer) closing() bool { return r.life.Err() != nil }

// closed reports whether the driver asked the browser to close
// (Browser.close): the connection's end is then the browser's.
func (r *Resumer) closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.book.closing
}

// end records err as the connection's end.
func (r *Resumer) end(err error) {
	r.mu.Lock()
	if r.final == nil {
		r.final = err
	}
	r.queue = nil
	r.mu.Unlock()
}

// hooks returns the subscribers' hooks.
func (r *Resumer) hooks() []*ResumeHooks {
	r.mu.Lock()
	defer r.mu.Unlock()
	hs := make([]*ResumeHooks, 0, len(r.subs))
	for _, h := range r.subs {
		hs = append(hs, h)
	}
	return hs
}

// resume dials again until the sessions are attached again or the window
// passes; it returns the error that ends the connection when it fails.
func (r *Resumer) resume(cause error) error {
	began := time.Now()
	reason, _ := LostReason(cause)
	if reason == "" {
		reason = cause.Error()
	}
	r.mu.Lock()
	r.down = true
	r.mu.Unlock()
	for _, h := range r.hooks() {
		if h.Dropped != nil {
			h.Dropped(reason)
		}
	}
	ctx, cancel := context.WithDeadline(r.life, began.Add(r.window))
	defer cancel()
	var (
		last  error
		tries int
	)
	for pause := time.Duration(0); ctx.Err() == nil; pause = nextPause(pause) {
		if pause > 0 {
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
			if ctx.Err() != nil {
				break
			}
		}
		tries++
		conn, err := r.dial(ctx)
		var res reattached
		if err == nil {
			res, err = r.reattach(ctx, conn)
			if err != nil {
				_ = conn.Close()
			}
		}
		if err == nil {
			r.resumed(conn, res, Resume{Took: time.Since(began), Tries: tries, Sessions: res.sessions, Gone: res.gone, Reason: reason})
			return nil
		}
		last = err
		if errors.Is(err, errOtherBrowser) || endpointGone(err) {
			break
		}
	}
	var msg string
	switch {
	case r.closing():
		msg = fmt.Sprintf("%s; not resumed: closed by the program", reason)
	case ctx.Err() != nil:
		msg = fmt.Sprintf("%s; not resumed within %s (%s, the last: %v)", reason, r.window, plural(tries, "try", "tries"), last)
	default:
		msg = fmt.Sprintf("%s; not resumed: %v (%s in %s)", reason, last, plural(tries, "try", "tries"),
			time.Since(began).Round(time.Millisecond))
	}
	final := &ConnectionError{Reason: msg, Err: cause}
	r.end(final)
	return final
}

// nextPause paces the dials: at once, then 50 ms doubling to 1 s, as a
// pool that restarts takes a moment.
func nextPause(p time.Duration) time.Duration {
	if p == 0 {
		return 50 * time.Millisecond
	}
	return min(2*p, time.Second)
}

// resumed puts conn in place, answers the calls in flight at the drop and
// sends the messages held meanwhile.
func (r *Resumer) resumed(conn *Conn, res reattached, rs Resume) {
	r.mu.Lock()
	old := r.conn
	r.conn = conn
	r.resumes++
	r.mu.Unlock()
	_ = old.Close()
	for _, h := range r.hooks() {
		if h.Resumed != nil {
			h.Resumed(rs)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inbox = append(r.inbox, res.inbox...)
	r.inbox = append(r.inbox, r.book.answerDropped(rs.Took)...)
	for _, data := range r.queue {
		if err := conn.WriteText(r.book.outgoing(data)); err != nil {
			break // the reader sees this drop next
		}
	}
	r.queue = nil
	r.down = false
}

// identityMethod asks for what tells one browser from another: its
// default browser context's ID, random for each browser process and the
// same on every connection to it (the browser target's ID is not: it is
// made for each connection).
const identityMethod = "Target.getBrowserContexts"

// errOtherBrowser is a resume that reached another browser than the one
// that dropped: a pool that starts a browser for each connection does so.
var errOtherBrowser = errors.New("another browser answers at the endpoint: the browser that dropped is gone")

// endpointGone reports whether a dial failed because the endpoint says
// the browser is not there: HTTP 404 or 410 to the handshake.
func endpointGone(err error) bool {
	var he *HandshakeError
	return errors.As(err, &he) && (he.Status == http.StatusNotFound || he.Status == http.StatusGone)
}

// reattached is what reattach did.
type reattached struct {
	inbox          [][]byte // for the driver, before anything the new connection sends
	sessions, gone int
}

// reattach attaches conn, a new connection to the browser, to the target
// of every session the driver had on the browser's own session, in one
// round trip with the check that the same browser answers, and sends each
// session's settings again. Sessions auto-attached on those (their
// iframes, their workers) come back as the settings sent again attach
// them (book.attached).
func (r *Resumer) reattach(ctx context.Context, conn *Conn) (reattached, error) {
	var res reattached
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	r.mu.Lock()
	b := &r.book
	clear(b.byReal)
	clear(b.own) // the replies of the connection that dropped never come
	b.nextOwn--
	checkID := b.nextOwn
	msgs := [][]byte{ownMessage(checkID, "", identityMethod, nil)}
	attach := map[int64]string{}
	targets := map[string]bool{}
	for drv, s := range b.sessions {
		s.stale = true
		if s.parent == "" {
			b.nextOwn--
			attach[b.nextOwn] = drv
			targets[s.target] = true
			msgs = append(msgs, ownMessage(b.nextOwn, "", "Target.attachToTarget", map[string]any{"targetId": s.target, "flatten": true}))
		}
	}
	want := b.browserID
	r.mu.Unlock()
	for _, m := range msgs {
		if err := conn.WriteText(m); err != nil {
			return res, ctxOr(ctx, err)
		}
	}
	replies := map[int64][]byte{}
	for len(replies) < len(attach)+1 {
		data, err := conn.ReadText()
		if err != nil {
			return res, ctxOr(ctx, err)
		}
		if id, ok := replyID(data); ok {
			if id == checkID || attach[id] != "" {
				replies[id] = data
			}
			continue
		}
		if method, _ := leadingMethodOf(data); string(method) == "Target.attachedToTarget" && reattaching(data, targets) {
			continue // the driver has the session under its old ID
		}
		res.inbox = append(res.inbox, data)
	}
	got := browserIdentity(replies[checkID])
	r.mu.Lock()
	defer r.mu.Unlock()
	if want != "" && got != "" && got != want {
		return res, errOtherBrowser
	}
	if want == "" {
		b.browserID = got
	}
	var resumed []string
	for id, drv := range attach {
		s := b.sessions[drv]
		real := attachedSession(replies[id])
		if real == "" {
			res.gone++
			res.inbox = append(res.inbox,
				event("Target.detachedFromTarget", "", map[string]any{"sessionId": drv, "targetId": s.target}),
				event("Target.targetDestroyed", "", map[string]any{"targetId": s.target}))
			b.forget(drv)
			continue
		}
		res.sessions++
		s.real, s.stale = real, false
		if real != drv {
			b.byReal[real] = drv
		}
		resumed = append(resumed, drv)
	}
	if want == "" && res.sessions == 0 && res.gone > 0 {
		return res, errOtherBrowser
	}
	var send [][]byte
	for _, c := range b.browser {
		send = append(send, b.ownCall("", c.method, c.params))
	}
	for _, drv := range resumed {
		b.replay(drv, b.sessions[drv])
	}
	send = append(send, b.toSend...)
	res.inbox = append(res.inbox, b.toDriver...)
	b.toSend, b.toDriver = nil, nil
	for _, m := range send {
		if err := conn.WriteText(m); err != nil {
			return res, ctxOr(ctx, err)
		}
	}
	return res, nil
}

// ctxOr is ctx's error once ctx has ended, else err.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// reattaching reports whether data, a Target.attachedToTarget, is of the
// browser's own session and of one of targets.
func reattaching(data []byte, targets map[string]bool) bool {
	var m struct {
		SessionID string `json:"sessionId"`
		Params    struct {
			TargetInfo struct {
				TargetID string `json:"targetId"`
			} `json:"targetInfo"`
		} `json:"params"`
	}
	return json.Unmarshal(data, &m) == nil && m.SessionID == "" && targets[m.Params.TargetInfo.TargetID]
}

// attachedSession reads the session of Target.attachToTarget's reply; ""
// when it failed (the target is gone).
func attachedSession(data []byte) string {
	var r struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	_ = json.Unmarshal(data, &r)
	return r.Result.SessionID
}

// resumable reports whether the connection's end err may leave the
// browser alive: a reset, a socket closed without a close frame, or a
// close frame that says the server goes away or restarts (1001, 1006,
// 1012, 1013, 1014). Any other close frame, and bytes that are no frame
// (a pool's "HTTP/1.1 408" at its session timeout), are the endpoint
// ending the session: the browser is gone with it.
func resumable(err error) bool {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		switch ce.Code {
		case websocket.StatusGoingAway, websocket.StatusAbnormalClosure, websocket.StatusServiceRestart,
			websocket.StatusTryAgainLater, websocket.StatusBadGateway:
			return true
		}
		return false
	}
	var ended *ConnectionError
	return !errors.As(err, &ended) || !strings.HasPrefix(ended.Reason, "not a WebSocket frame") &&
		!strings.HasPrefix(ended.Reason, "a message that is not CDP JSON")
}

// plural is n and the noun, one or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
