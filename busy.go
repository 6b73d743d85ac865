package tabguard

import (
	"context"
	"errors"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

const (
	// busyProbeWindow is how long before an eval's deadline the watcher
	// asks whether the page's main thread still answers, so the answer is
	// there when the deadline passes (at most half the timeout).
	busyProbeWindow = time.Second
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
// answers a trivial evaluate, and whether its renderer answers an
// interrupt. It makes no call for an eval that ends sooner, so the healthy
// path pays for a timer only.
type busyCheck struct {
	timer  *time.Timer
	cancel context.CancelFunc // ends the probe early
	done   chan struct{}
	ran    bool
	cause  TimeoutCause
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
		c.cause, c.err = w.busy(ctx, deadline)
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

// timedOut completes the error of an eval that ran out of time with what
// the tab was doing, so a caller can tell a slow page from a stuck script
// or a hung renderer, and stops a runaway script when
// Options.TerminateOnTimeout asks for it.
func (w *Watcher) timedOut(c *busyCheck, limit time.Duration) *timeoutError {
	s := w.State()
	cause := TimeoutUnknown
	switch {
	case !s.Committed:
		cause = TimeoutLoading
	case c.ran && c.err == nil:
		cause = c.cause
	}
	var terminate func() error
	if w.terminate {
		terminate = w.terminateScript
	}
	return tabstate.Timeout(limit, s.URL, cause, timeoutAdvice, terminate, terminateTimeout)
}

// timeoutAdvice names the call that ends a cause, if any.
func timeoutAdvice(cause TimeoutCause) string {
	switch cause {
	case TimeoutHidden:
		return "Page.bringToFront (proto.PageBringToFront) shows it"
	case TimeoutFrozen:
		return "resume it with Page.setWebLifecycleState active (proto.PageSetWebLifecycleState)"
	case TimeoutBusyScript:
		return "set Options.TerminateOnTimeout or call Runtime.terminateExecution to stop it"
	case TimeoutHung:
		return "Watcher.HandleDialog closes a dialog; otherwise close the tab with Watcher.CloseTab and open a new one"
	case TimeoutSilent:
		return "set Options.Heartbeat to notice a silent connection and fail at once"
	}
	return ""
}

// busy finds out, by deadline, why the eval has not answered. It sends
// the four probes of [tabstate.Probes] at once and lets
// [tabstate.Diagnose] read their answers. A tab in its first load holds
// every renderer command, so it is not asked. err is set when the probes
// could not tell, e.g. because the tab is refused or closing.
func (w *Watcher) busy(ctx context.Context, deadline time.Time) (TimeoutCause, error) {
	if !w.State().Committed {
		return TimeoutLoading, errNotProbed
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var visibility *proto.RuntimeEvaluateResult
	errs := together(
		func() error {
			return w.probe(w.page.Context(ctx), func(p *rod.Page) (err error) {
				visibility, err = proto.RuntimeEvaluate{Expression: "document.visibilityState"}.Call(p)
				return err
			})
		},
		func() error {
			return w.probe(w.page.Context(ctx), func(p *rod.Page) error {
				_, err := proto.RuntimeEvaluate{Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: true}.Call(p)
				return err
			})
		},
		func() error {
			return w.probe(w.page.Context(ctx), func(p *rod.Page) error {
				_, err := proto.PerformanceGetMetrics{}.Call(p)
				return err
			})
		},
		func() error {
			_, err := proto.BrowserGetVersion{}.Call(w.page.Browser().Context(ctx))
			return err
		},
	)
	if errors.Is(ctx.Err(), context.Canceled) {
		return TimeoutUnknown, errNotProbed // the eval answered, or the watcher closed
	}
	p := tabstate.Probes{Evaluate: errs[0], Timer: errs[1], Interrupt: errs[2], Browser: errs[3]}
	if errs[0] == nil {
		p.Visibility = visibility.Result.Value.Str()
	}
	return tabstate.Diagnose(p)
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
