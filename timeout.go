package tabguard

import (
	"context"
	"errors"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

const (
	// busyProbeWindow is how long before an eval's deadline the watcher
	// asks whether the page's main thread still answers, so the answer is
	// there when the deadline passes (at most half the timeout).
	busyProbeWindow = 250 * time.Millisecond
	// terminateTimeout bounds Runtime.terminateExecution, which Chrome
	// answers in milliseconds even while a loop holds the main thread.
	terminateTimeout = 100 * time.Millisecond
	// eventGrace is how long an ambiguous CDP error waits for the event
	// that explains it, which may trail the reply.
	eventGrace = 100 * time.Millisecond
)

// errNotProbed marks a busy check that did not ask the page.
var errNotProbed = errors.New("not probed")

// busyCheck asks, shortly before an eval's deadline, whether the page
// answers a trivial evaluate. It makes no call for an eval that ends sooner,
// so the healthy path pays for a timer only.
type busyCheck struct {
	timer  *time.Timer
	cancel context.CancelFunc // ends the probe early
	done   chan struct{}
	ran    bool
	busy   bool
	err    error
}

// checkBusy arms a busy check for an eval with the given timeout.
func (w *Watcher) checkBusy(timeout time.Duration) *busyCheck {
	window := min(busyProbeWindow, timeout/2)
	ctx, cancel := context.WithCancel(w.page.GetContext())
	c := &busyCheck{cancel: cancel, done: make(chan struct{}), err: errNotProbed}
	// The probe ends with the eval's deadline even if the timer fires
	// late on a loaded machine, so it never delays the eval's answer.
	deadline := time.Now().Add(timeout)
	c.timer = time.AfterFunc(timeout-window, func() {
		defer close(c.done)
		c.busy, c.err = w.busy(ctx, deadline)
	})
	return c
}

// stop disarms the check, or waits for the probe it started, which ends
// by the eval's deadline; an eval that answered (answered is true) ends the
// probe at once instead.
func (c *busyCheck) stop(answered bool) {
	defer c.cancel()
	if c.timer.Stop() {
		return
	}
	if answered {
		c.cancel()
	}
	<-c.done
	c.ran = true
}

// timedOut says what the tab was doing when an eval ran out of time, so a
// caller can tell a slow page from a stuck script, and stops a runaway
// script when Options.TerminateOnTimeout asks for it.
func (w *Watcher) timedOut(c *busyCheck) string {
	s := w.State()
	switch {
	case !s.Committed && s.URL == "":
		return "tab still loading"
	case !s.Committed:
		return "tab still loading " + s.URL
	case !c.ran || c.err != nil:
		return "page " + s.URL + " is loaded: a script is busy or a promise never settled"
	case !c.busy:
		return "page " + s.URL + " answers, but the eval's promise never settled"
	case !w.terminate:
		return "busy running script on committed page " + s.URL +
			": set Options.TerminateOnTimeout or call Runtime.terminateExecution to stop it"
	}
	busy := "busy running script on committed page " + s.URL
	switch err := w.terminateScript(); {
	case err == nil:
		return busy + ": script terminated, the tab answers again"
	case errors.Is(err, context.DeadlineExceeded):
		// The request is out; Chrome acts on it when it gets to it.
		return busy + ": terminating the script, unconfirmed after " + terminateTimeout.String()
	default:
		return busy + ": terminating the script failed: reload the tab"
	}
}

// busy reports whether the page's main thread is too busy to answer an
// evaluate that awaits nothing by deadline. A tab in its first load holds
// every renderer command, so it is not asked. err is set when the probe
// could not tell, e.g. because the tab is refused or closing.
func (w *Watcher) busy(ctx context.Context, deadline time.Time) (bool, error) {
	if !w.State().Committed {
		return false, errNotProbed
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	err := w.probe(w.page.Context(ctx), func(p *rod.Page) error {
		_, err := proto.RuntimeEvaluate{Expression: "0"}.Call(p)
		return err
	})
	switch {
	case err == nil:
		return false, nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded):
		return true, nil
	}
	return false, err
}

// terminateScript stops the script running on the page. Chrome handles
// Runtime.terminateExecution by interrupting the running script, so it
// answers while a loop holds the main thread.
func (w *Watcher) terminateScript() error {
	w.mu.Lock()
	w.terminations++
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(w.page.GetContext(), terminateTimeout)
	defer cancel()
	err := w.probe(w.page.Context(ctx), func(p *rod.Page) error {
		return proto.RuntimeTerminateExecution{}.Call(p)
	})
	if err != nil {
		w.logf("tabguard: terminating a runaway script failed", err)
	}
	return err
}
