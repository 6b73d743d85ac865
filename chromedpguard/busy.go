package chromedpguard

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/runtime"
	"github.com/tabguard/tabguard/tabstate"
)

const (
	// busyProbeWindow is how long before an eval's deadline the watcher
	// asks whether the page still answers, so the answer is there when the
	// deadline passes (at most half the timeout).
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
// answers. It makes no call for an eval that ends sooner: the healthy path
// pays for a timer only.
type busyCheck struct {
	timer  *time.Timer
	cancel context.CancelFunc
	done   chan struct{}
	ran    bool
	cause  TimeoutCause
	err    error
}

// checkBusy arms a busy check for an eval with the given timeout.
func (w *Watcher) checkBusy(timeout time.Duration) *busyCheck {
	window := min(busyProbeWindow, timeout/2)
	ctx, cancel := context.WithCancel(w.life)
	c := &busyCheck{cancel: cancel, done: make(chan struct{}), err: errNotProbed}
	deadline := time.Now().Add(timeout)
	c.timer = time.AfterFunc(timeout-window, func() {
		defer close(c.done)
		c.cause, c.err = w.busy(ctx, deadline)
	})
	return c
}

// stop disarms the check, or waits for the probe it started, which ends by
// the eval's deadline, or at once for an eval that answered.
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

// timedOut completes the error of a call that ran out of time with what
// the tab was doing, and stops a runaway script when
// Options.TerminateOnTimeout asks for it. The causes are the rod backend's;
// the advice names chromedp's calls.
func (w *Watcher) timedOut(c *busyCheck, limit time.Duration) *TimeoutError {
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

// timeoutAdvice names the chromedp call that ends a cause, if any.
func timeoutAdvice(cause TimeoutCause) string {
	switch cause {
	case TimeoutHidden:
		return "Page.bringToFront (page.BringToFront) shows it"
	case TimeoutFrozen:
		return "resume it with Page.setWebLifecycleState active (page.SetWebLifecycleState)"
	case TimeoutBusyScript:
		return "set Options.TerminateOnTimeout or call Runtime.terminateExecution (runtime.TerminateExecution) to stop it"
	case TimeoutHung:
		return "Watcher.HandleDialog closes a dialog; otherwise close the tab by cancelling its chromedp context and open a new one"
	case TimeoutSilent:
		return "set Options.Heartbeat to notice a silent connection and fail at once"
	}
	return ""
}

// busy finds out, by deadline, why the eval has not answered. It sends
// the four probes of [tabstate.Probes] at once and lets [tabstate.Diagnose]
// read their answers. A tab in its first load is not asked. err is set when
// the probes could not tell.
func (w *Watcher) busy(ctx context.Context, deadline time.Time) (TimeoutCause, error) {
	if !w.State().Committed {
		return TimeoutLoading, errNotProbed
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var visibility runtime.EvaluateResult
	errs := together(
		func() error {
			return w.probe(ctx, func(ctx context.Context) (err error) {
				visibility, err = cdp.Call(ctx, w.target, runtime.Evaluate, runtime.EvaluateParams{
					Expression: "document.visibilityState", ReturnByValue: ptr(true)})
				return err
			})
		},
		func() error {
			return w.probe(ctx, func(ctx context.Context) error {
				_, err := cdp.Call(ctx, w.target, runtime.Evaluate, runtime.EvaluateParams{
					Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: ptr(true)})
				return err
			})
		},
		func() error {
			return w.probe(ctx, func(ctx context.Context) error {
				_, err := cdp.Call(ctx, w.target, performance.GetMetrics, cdp.Empty{})
				return err
			})
		},
		func() error { return w.bw.browser.Call(ctx, "Browser.getVersion", nil, nil) },
	)
	if errors.Is(ctx.Err(), context.Canceled) {
		return TimeoutUnknown, errNotProbed // the eval answered, or the watcher closed
	}
	p := tabstate.Probes{Evaluate: errs[0], Timer: errs[1], Interrupt: errs[2], Browser: errs[3]}
	if errs[0] == nil && visibility.Result != nil {
		p.Visibility = strings.Trim(string(visibility.Result.Value), `"`)
	}
	return tabstate.Diagnose(p)
}

// terminateScript stops the script running on the page; Chrome answers
// Runtime.terminateExecution while a loop holds the main thread.
func (w *Watcher) terminateScript() error {
	w.mu.Lock()
	w.terminations++
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(w.life, terminateTimeout)
	defer cancel()
	err := w.probe(ctx, func(ctx context.Context) error {
		_, err := cdp.Call(ctx, w.target, runtime.TerminateExecution, cdp.Empty{})
		return err
	})
	if err != nil {
		w.logf("tabguard: terminating a runaway script failed", err)
	}
	return err
}
