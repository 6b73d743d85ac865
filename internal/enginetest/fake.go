// Package enginetest is a fake browser driver for tests of the engine's
// rules without a browser: it answers commands from handlers a test sets,
// and delivers the events Chrome would send with a reply in either order
// Chrome produces by chance, before the reply (as chromedp sees them) or
// after it (as rod can). It records every command, and every command sent
// from inside the engine's event intake, which must send none.
package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
)

// Order is the order in which a reply and the events Chrome sent before
// it reach the engine.
type Order int

const (
	// EventsFirst delivers a reply's events before the reply returns, as
	// chromedp does.
	EventsFirst Order = iota
	// ReplyFirst returns the reply first and delivers its events later,
	// after a delay or at the next Sync, as rod's fan-out can.
	ReplyFirst
)

// String names the order, for subtests.
func (o Order) String() string {
	if o == ReplyFirst {
		return "reply-first"
	}
	return "events-first"
}

// LateBy is how long ReplyFirst holds a reply's events when no Sync
// asks for them sooner.
const LateBy = 20 * time.Millisecond

// Event pushes one event into the engine, as a driver's intake does.
type Event func(b *engine.Browser)

// Page is the event ev of the tab watched on session.
func Page(session string, ev tabstate.Event) Event {
	return func(b *engine.Browser) {
		if t := b.Tab(session); t != nil {
			t.Apply(ev)
		}
	}
}

// Reply is a handler's answer to a command.
type Reply struct {
	// Result is encoded to JSON and decoded into the engine's result.
	Result any
	// Err is the command's error, such as a *ProtocolError.
	Err error
	// Events are what Chrome sends with the reply, before it on the wire.
	Events []Event
	// After are what Chrome sends after the reply: they reach the engine
	// LateBy after it, after Events in either order.
	After []Event
	// Hang holds the reply until the call's context ends.
	Hang bool
	// Delay holds the reply this long, as a loaded renderer is slow to
	// answer; the call's context ending first ends the call.
	Delay time.Duration
}

// Handler answers a command sent on session with params (its JSON).
type Handler func(session string, params json.RawMessage) Reply

// Call is one command the engine sent.
type Call struct {
	Session, Method string
	Params          json.RawMessage // as encoding/json writes them
	Value           any             // the params as the engine passed them
	Result          any             // the engine's result value, for a decoder test
	ResultJSON      json.RawMessage // the answer, as the fake sent it
	FromIntake      bool            // sent from inside the event intake
}

// Fake is the driver. Make one with New.
type Fake struct {
	order Order
	// roundTrip holds every reply, as a distant browser's link does (a
	// time.Duration; see SetRoundTrip).
	roundTrip atomic.Int64

	mu       sync.Mutex
	handlers map[string]Handler
	calls    []Call
	late     []Event // ReplyFirst: events Chrome sent that the engine has not seen
	b        *engine.Browser

	intake   chan func()
	intakeID int64
	done     chan struct{}
	wg       sync.WaitGroup
}

// New makes a Fake that delivers events in order. Close it when done.
func New(order Order) *Fake {
	f := &Fake{order: order, handlers: map[string]Handler{}, intake: make(chan func()), done: make(chan struct{})}
	ready := make(chan struct{})
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.intakeID = goid()
		close(ready)
		for {
			select {
			case fn := <-f.intake:
				fn()
			case <-f.done:
				return
			}
		}
	}()
	<-ready
	return f
}

// Driver is the engine.Driver of f: a Syncer too under ReplyFirst.
func (f *Fake) Driver() engine.Driver {
	if f.order == ReplyFirst {
		return syncFake{f}
	}
	return f
}

// Attach tells f the Browser it pushes events into.
func (f *Fake) Attach(b *engine.Browser) {
	f.mu.Lock()
	f.b = b
	f.mu.Unlock()
}

// Close stops the intake goroutine and any late delivery.
func (f *Fake) Close() {
	close(f.done)
	f.wg.Wait()
}

// Handle sets the handler of method; a method with none answers {}.
func (f *Fake) Handle(method string, h Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[method] = h
}

// SetRoundTrip makes every command answer rtt after it was sent, on the
// browser's session and the tabs' alike, as over a distant browser's link,
// until set again (zero: at once). The call's context ending first ends
// the call.
func (f *Fake) SetRoundTrip(rtt time.Duration) { f.roundTrip.Store(int64(rtt)) }

// Session is the tab session id of f.
func (f *Fake) Session(id string) engine.Session { return session{f, id} }

// Push delivers events through the intake, as Chrome sending them with no
// reply, after any events Chrome sent before them that the engine has not
// seen yet, and returns once the engine has taken them in.
func (f *Fake) Push(events ...Event) {
	f.mu.Lock()
	all := append(f.late, events...)
	f.late = nil
	f.mu.Unlock()
	f.deliver(all)
}

// Calls returns the commands sent so far.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Count counts the commands of method sent so far.
func (f *Fake) Count(method string) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Method == method {
			n++
		}
	}
	return n
}

// deliver runs events on the intake goroutine, in order, and waits.
func (f *Fake) deliver(events []Event) {
	if len(events) == 0 {
		return
	}
	f.mu.Lock()
	b := f.b
	f.mu.Unlock()
	finished := make(chan struct{})
	select {
	case f.intake <- func() {
		defer close(finished)
		for _, ev := range events {
			ev(b)
		}
	}:
		<-finished
	case <-f.done:
	}
}

// Call answers a command on the browser session.
func (f *Fake) Call(ctx context.Context, method string, params, result any) error {
	return f.call(ctx, "", method, params, result)
}

func (f *Fake) call(ctx context.Context, id, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.calls = append(f.calls, Call{Session: id, Method: method, Params: raw, Value: params, Result: result, FromIntake: goid() == f.intakeID})
	h := f.handlers[method]
	f.mu.Unlock()
	r := Reply{Result: struct{}{}}
	if h != nil {
		r = h(id, raw)
	}
	if f.order == EventsFirst {
		f.deliver(r.Events)
	} else {
		f.later(r.Events)
	}
	f.after(r.After)
	if d := r.Delay + time.Duration(f.roundTrip.Load()); d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-f.done:
			timer.Stop()
			return errors.New("fake closed")
		}
	}
	if r.Hang {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-f.done:
			return errors.New("fake closed")
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.Err != nil || result == nil {
		return r.Err
	}
	out, err := json.Marshal(r.Result)
	if err != nil {
		return err
	}
	f.mu.Lock()
	for i := len(f.calls) - 1; i >= 0; i-- {
		if c := &f.calls[i]; c.Result == result && c.Method == method {
			c.ResultJSON = out
			break
		}
	}
	f.mu.Unlock()
	return json.Unmarshal(out, result)
}

// later queues events to deliver after LateBy, or at the next Sync.
func (f *Fake) later(events []Event) {
	if len(events) == 0 {
		return
	}
	f.mu.Lock()
	f.late = append(f.late, events...)
	f.mu.Unlock()
	f.soon(f.flush)
}

// after pushes events LateBy from now: Push delivers the late events
// first, so they trail those queued before.
func (f *Fake) after(events []Event) {
	if len(events) == 0 {
		return
	}
	f.soon(func() { f.Push(events...) })
}

// soon runs fn LateBy from now, unless f closes first.
func (f *Fake) soon(fn func()) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		select {
		case <-time.After(LateBy):
			fn()
		case <-f.done:
		}
	}()
}

// flush delivers the late events, in order.
func (f *Fake) flush() {
	f.mu.Lock()
	events := f.late
	f.late = nil
	f.mu.Unlock()
	f.deliver(events)
}

// Classify reads the fake's errors.
func (f *Fake) Classify(err error) engine.Failure {
	var pe *ProtocolError
	var le *LostError
	switch {
	case errors.As(err, &pe):
		return engine.Failure{Kind: engine.Protocol, Code: pe.Code, Message: pe.Message}
	case errors.Is(err, ErrDetached):
		return engine.Failure{Kind: engine.Detached}
	case errors.As(err, &le):
		return engine.Failure{Kind: engine.Lost, Reason: le.Reason}
	}
	return engine.Failure{}
}

// AttachFrame attaches to an out-of-process iframe's target as a driver
// does: it sends Target.attachToTarget on the browser session, and the
// session it answers ({"sessionId": ...}) is the frame's; detach sends
// Target.detachFromTarget.
func (f *Fake) AttachFrame(ctx context.Context, targetID string) (engine.Session, func(), error) {
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := f.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true}, &res); err != nil {
		return nil, nil, err
	}
	detach := func() {
		_ = f.call(context.Background(), "", "Target.detachFromTarget", map[string]any{"sessionId": res.SessionID}, nil)
	}
	return session{f, res.SessionID}, detach, nil
}

// syncFake is the Fake under ReplyFirst: Sync delivers the late events.
type syncFake struct{ *Fake }

// Sync delivers every event Chrome sent so far.
func (s syncFake) Sync(context.Context) error {
	s.flush()
	return nil
}

// session is a tab session of the fake.
type session struct {
	f  *Fake
	id string
}

// Call answers a command on the session.
func (s session) Call(ctx context.Context, method string, params, result any) error {
	return s.f.call(ctx, s.id, method, params, result)
}

// ProtocolError is Chrome's error answer to a command.
type ProtocolError struct {
	Code    int64
	Message string
}

func (e *ProtocolError) Error() string { return e.Message + " (" + strconv.FormatInt(e.Code, 10) + ")" }

// ErrDetached is the error of a command on a session that is gone.
var ErrDetached = errors.New("session detached")

// LostError is the error of a command on a lost connection.
type LostError struct{ Reason string }

func (e *LostError) Error() string { return "connection lost: " + e.Reason }

// goid is the current goroutine's ID, read from its stack header.
func goid() int64 {
	var buf [64]byte
	s := strings.TrimPrefix(string(buf[:runtime.Stack(buf[:], false)]), "goroutine ")
	id, _ := strconv.ParseInt(s[:strings.IndexByte(s, ' ')], 10, 64)
	return id
}
