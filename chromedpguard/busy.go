package chromedpguard

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/runtime"
)

const (
	// busyProbeWindow is how long before an eval's deadline the watcher
	// asks whether the page still answers, so the answer is there when the
	// deadline passes (at most half the timeout).
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

// pageHealth is what the busy check found of a page that has not answered
// an eval in time.
type pageHealth int

const (
	answers pageHealth = iota // only the eval's promise is pending
	hidden                    // it answers, but no animation frames run
	frozen                    // it answers, but no timers run either
	busyJS                    // JavaScript holds the main thread
	hung                      // the renderer answers nothing, not even an interrupt
	silent                    // the browser answers nothing at all
)

// busyCheck asks, shortly before an eval's deadline, whether the page
// answers. It makes no call for an eval that ends sooner: the healthy path
// pays for a timer only.
type busyCheck struct {
	timer  *time.Timer
	cancel context.CancelFunc
	done   chan struct{}
	ran    bool
	health pageHealth
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
		c.health, c.err = w.busy(ctx, deadline)
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

// timedOut says what the tab was doing when a call ran out of time, and
// stops a runaway script when Options.TerminateOnTimeout asks for it. The
// messages are the rod backend's, with chromedp's names for the calls.
func (w *Watcher) timedOut(c *busyCheck) string {
	s := w.State()
	switch {
	case !s.Committed && s.URL == "":
		return "tab still loading"
	case !s.Committed:
		return "tab still loading " + s.URL
	case !c.ran || c.err != nil:
		return "page " + s.URL + " is loaded: a script is busy or a promise never settled"
	case c.health == answers:
		return "page " + s.URL + " answers, but the eval's promise never settled"
	case c.health == hidden:
		return "page " + s.URL + " answers, but the eval's promise never settled; the page is hidden, as a background " +
			"tab is, where requestAnimationFrame does not run: Page.bringToFront (page.BringToFront) shows it"
	case c.health == frozen:
		return "page " + s.URL + " answers, but the eval's promise never settled; the page is frozen, so it runs no " +
			"timers: resume it with Page.setWebLifecycleState active (page.SetWebLifecycleState)"
	case c.health == silent && (!w.terminate || w.terminateScript() != nil):
		return "the browser answers nothing at all, not even Browser.getVersion: the connection may have gone silent, " +
			"as behind a proxy that stopped forwarding; set Options.Heartbeat to notice that and fail at once"
	case c.health == silent:
		return "busy running script on committed page " + s.URL + ": script terminated, the tab answers again"
	case c.health == hung:
		return "renderer of page " + s.URL + " answers nothing, not even an interrupt: a JavaScript dialog " +
			"opened before Watch (Watcher.HandleDialog closes it), or the renderer hangs outside JavaScript " +
			"(close it by cancelling its chromedp context and open a new one)"
	case !w.terminate:
		return "busy running script on committed page " + s.URL +
			": set Options.TerminateOnTimeout or call Runtime.terminateExecution to stop it"
	}
	busy := "busy running script on committed page " + s.URL
	switch err := w.terminateScript(); {
	case err == nil:
		return busy + ": script terminated, the tab answers again"
	case errors.Is(err, context.DeadlineExceeded):
		return busy + ": terminating the script, unconfirmed after " + terminateTimeout.String()
	default:
		return busy + ": terminating the script failed: reload the tab (Watcher.Reload)"
	}
}

// busy finds out, by deadline, why the eval has not answered, with four
// probes at once (measured on Chromium 156 for the rod backend):
// document.visibilityState answers unless script holds the main thread or
// the renderer hangs; Performance.getMetrics answers mid-loop but not from
// a hung renderer; Browser.getVersion answers whatever the tabs do, so its
// silence means the connection's; a zero-delay timer's promise settles
// unless the page is frozen. A tab in its first load is not asked.
func (w *Watcher) busy(ctx context.Context, deadline time.Time) (pageHealth, error) {
	if !w.State().Committed {
		return answers, errNotProbed
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
				_, err := cdp.Call(ctx, w.target, performance.GetMetrics, cdp.Empty{})
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
		func() error { return w.bw.browser.Call(ctx, "Browser.getVersion", nil, nil) },
	)
	timedOut := func(err error) bool {
		return errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded)
	}
	isHidden := errs[0] == nil && visibility.Result != nil && string(visibility.Result.Value) == `"hidden"`
	switch {
	case errs[0] == nil && !isHidden:
		return answers, nil
	case errs[0] == nil && errs[2] == nil:
		return hidden, nil
	case errs[0] == nil && timedOut(errs[2]):
		return frozen, nil
	case errs[0] == nil:
		return answers, nil
	case !timedOut(errs[0]):
		return answers, errs[0]
	case timedOut(errs[1]) && timedOut(errs[3]):
		return silent, nil
	case errs[1] == nil:
		return busyJS, nil
	case timedOut(errs[1]):
		return hung, nil
	}
	return busyJS, errs[1]
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
