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

// pageHealth is what the busy check found out about a page that has not
// answered an eval in time.
type pageHealth int

const (
	answers pageHealth = iota // the page answers: only the eval's promise is pending
	hidden                    // it answers, but it is hidden: no animation frames run
	frozen                    // it answers, but it is frozen: no timers run either
	busyJS                    // JavaScript holds the main thread
	hung                      // the renderer answers nothing, not even an interrupt
	silent                    // the browser answers nothing at all: the connection
)

// busyCheck asks, shortly before an eval's deadline, whether the page
// answers a trivial evaluate, and whether its renderer answers an
// interrupt. It makes no call for an eval that ends sooner, so the healthy
// path pays for a timer only.
type busyCheck struct {
	timer  *time.Timer
	cancel context.CancelFunc // ends the probe early
	done   chan struct{}
	ran    bool
	health pageHealth
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
		c.health, c.err = w.busy(ctx, deadline)
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
// caller can tell a slow page from a stuck script or a hung renderer, and
// stops a runaway script when Options.TerminateOnTimeout asks for it.
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
			"tab is, where requestAnimationFrame does not run: Page.bringToFront (proto.PageBringToFront) shows it"
	case c.health == frozen:
		return "page " + s.URL + " answers, but the eval's promise never settled; the page is frozen, so it runs no " +
			"timers: resume it with Page.setWebLifecycleState active (proto.PageSetWebLifecycleState)"
	case c.health == silent && (!w.terminate || w.terminateScript() != nil):
		return "the browser answers nothing at all, not even Browser.getVersion: the connection may have gone silent, " +
			"as behind a proxy that stopped forwarding; set Options.Heartbeat to notice that and fail at once"
	case c.health == silent:
		// The terminate answered: the connection lives, a script was busy.
		return "busy running script on committed page " + s.URL + ": script terminated, the tab answers again"
	case c.health == hung:
		return "renderer of page " + s.URL + " answers nothing, not even an interrupt: a JavaScript dialog " +
			"opened before Watch (Watcher.HandleDialog closes it), or the renderer hangs outside JavaScript " +
			"(close it with Watcher.CloseTab and open a new one)"
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
		return busy + ": terminating the script failed: reload the tab (Watcher.Reload)"
	}
}

// busy finds out, by deadline, why the eval has not answered. It sends
// three probes at once, measured on Chromium 156:
//
//   - document.visibilityState, an evaluate that awaits nothing: it answers
//     unless script holds the main thread or the renderer hangs;
//   - Performance.getMetrics, which Chrome dispatches as an interrupt: it
//     answers in about a millisecond while a script loops, but not when the
//     renderer hangs outside JavaScript (chrome://hang), where
//     Runtime.terminateExecution goes unanswered too, nor while a dialog
//     that opened before Watch holds the page;
//   - Browser.getVersion, which the browser process answers whatever the
//     tabs do: when it goes unanswered too, the connection is silent;
//   - a promise of a zero-delay timer: a page frozen by
//     Page.setWebLifecycleState answers evaluates but runs no timers (and
//     Chrome sends no event when it freezes), while a background tab runs
//     timers but no animation frames (and no event tells that either).
//
// A tab in its first load holds every renderer command, so it is not
// asked. err is set when the probe could not tell, e.g. because the tab is
// refused or closing.
func (w *Watcher) busy(ctx context.Context, deadline time.Time) (pageHealth, error) {
	if !w.State().Committed {
		return answers, errNotProbed
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
				_, err := proto.PerformanceGetMetrics{}.Call(p)
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
			_, err := proto.BrowserGetVersion{}.Call(w.page.Browser().Context(ctx))
			return err
		},
	)
	timedOut := func(err error) bool {
		return errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded)
	}
	switch {
	case errs[0] == nil && visibility.Result.Value.Str() != "hidden":
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
		// Nothing came back at all; any answer would have proved the
		// connection alive. (A badly overloaded machine looks so too.)
		return silent, nil
	case errs[1] == nil:
		return busyJS, nil
	case timedOut(errs[1]):
		return hung, nil
	}
	return busyJS, errs[1]
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
