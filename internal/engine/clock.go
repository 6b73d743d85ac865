package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// clock is a call's deadline: the caller's own, when its context has one,
// or else the eval timeout, as database/sql's calls take theirs from
// their context. One timer serves it: shortly before the deadline
// it asks the page why the call has not answered (the busy probes), and at
// the deadline it cuts the call short with a [*tabstate.TimeoutError]
// (the caller's own deadline ends the call by itself). The probes start
// two probe windows before the deadline (Browser.patience), at most
// three quarters of the time the call has: a short deadline leaves them
// too little time to prove what did not answer, and the timeout then
// names no such cause (Diagnose). A call that answers sooner stops the
// timer: the healthy path pays for a timer only, and the clock lives in
// its call's inflight, so it costs no allocation of its own.
type clock struct {
	timer    *time.Timer
	limit    time.Duration // the time the call has
	deadline time.Time
	callers  bool // the caller's deadline governs
	probe    bool // ask the page why, before the deadline
	wg       sync.WaitGroup

	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc // ends the probe, once it runs
	ended   chan struct{}      // closed when the call ended, once the timer fired

	ran    bool // the probes answered, or ran to the deadline
	cause  tabstate.TimeoutCause
	probes tabstate.Probes
	err    error
}

// errNotProbed marks a call whose clock did not ask the page.
var errNotProbed = errors.New("not probed")

// arm starts call's clock; probe says to ask the page why, before the
// deadline.
func (t *Tab) arm(ctx context.Context, call *inflight, probe bool) {
	c := &call.clock
	now := time.Now()
	c.probe, c.err = probe, errNotProbed
	c.limit, c.deadline, c.callers = t.bound(ctx, now)
	at := c.deadline.Sub(now)
	if probe {
		// Two windows, so that a timer that fires late on a loaded
		// machine still leaves the probes the one that proves; at most
		// three quarters of the call's time.
		at -= min(2*t.b.patience(), at*3/4)
	}
	c.wg.Add(1)
	c.timer = time.AfterFunc(at, func() { t.tick(call) })
}

// bound is the time a call made at now under ctx has, and when that
// ends: ctx's deadline when it has one (callers), the limit being the time
// to it, to the millisecond; else the eval timeout.
func (t *Tab) bound(ctx context.Context, now time.Time) (limit time.Duration, deadline time.Time, callers bool) {
	if d, ok := ctx.Deadline(); ok {
		return max(d.Sub(now), 0).Round(time.Millisecond), d, true
	}
	return t.timeout, now.Add(t.timeout), false
}

// tick runs when the timer fires: the probes, if asked for, and the cut at
// the deadline. The probes end with the deadline even if the timer fires
// late on a loaded machine, so they never delay the call's answer.
func (t *Tab) tick(call *inflight) {
	c := &call.clock
	defer c.wg.Done()
	ctx, cancel := context.WithDeadline(t.life, c.deadline)
	defer cancel()
	ended := make(chan struct{})
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.cancel, c.ended = cancel, ended
	c.mu.Unlock()
	if c.probe {
		c.cause, c.probes, c.err = t.busy(ctx)
		c.ran = !errors.Is(c.err, errNotProbed)
	}
	select {
	case <-ctx.Done():
	case <-ended:
		return
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !c.callers {
		call.cut(&tabstate.TimeoutError{Limit: c.limit})
	}
}

// stop stops the clock of a call that ended. wait says the call timed out,
// so the probes' answer is wanted: they end by the deadline. Otherwise the
// probes end at once.
func (c *clock) stop(wait bool) {
	if c.timer.Stop() {
		c.wg.Done()
		return
	}
	c.mu.Lock()
	c.stopped = true
	cancel, ended := c.cancel, c.ended
	c.mu.Unlock()
	if ended != nil {
		close(ended)
	}
	if !wait && cancel != nil {
		cancel()
	}
	c.wg.Wait()
}

// timedOut is the error of a call that ran out of time, saying what the
// tab was doing, so a caller can tell a slow page from a stuck script or a
// hung renderer; it stops a runaway script when the configuration asks.
func (t *Tab) timedOut(c *clock, op string) *tabstate.TimeoutError {
	s := t.State()
	cause := tabstate.TimeoutUnknown
	switch {
	case !s.Committed:
		cause = tabstate.TimeoutLoading
	case c.ran && c.err == nil:
		cause = c.cause
	}
	var terminate func() error
	if t.b.cfg.TerminateOnTimeout {
		terminate = t.terminateScript
	}
	te := tabstate.Timeout(c.limit, s.URL, cause, t.b.cfg.advice, terminate, t.b.terminateBound())
	te.Op, te.Milestones, te.Console = op, s.Milestones, t.consoleTail()
	if te.Cause == tabstate.TimeoutUnknown && c.ran && c.err == nil {
		te.Doing = unproven(c.probes, s.URL, op)
	} else if te.Doing == te.Cause.Describe(s.URL) {
		// Words for the call: one that is no eval never finished, where an
		// eval's promise never settled.
		te.Doing = te.Cause.DescribeCall(s.URL, op)
	}
	if te.Cause == tabstate.TimeoutHung || te.Cause == tabstate.TimeoutNavigating || te.Cause == tabstate.TimeoutBusyScript && terminate == nil {
		t.noteStall(te)
	}
	return t.b.cfg.Advice.Words(te)
}
