package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// terminateBound bounds Runtime.terminateExecution, which Chrome answers
// in milliseconds even while a loop holds the main thread, on an idle
// machine; on a loaded one (measured: load average 25 on 2 cores) the
// answer took over 100 ms. It is half the engine's patience (500 ms by
// default), or more as the link shows.
func (b *Browser) terminateBound() time.Duration { return b.due(b.cfg.patience() / 2) }

// busy finds out, by ctx's deadline (the call's), why a call has not
// answered. It sends the four probes of [tabstate.Probes] at once and lets
// [tabstate.Diagnose] read their answers, which names a cause that rests
// on a probe that did not answer only when the probes had the time to
// prove it: the probe window (Browser.patience): the patience or three
// of the link's round trips. A tab in its first load holds every renderer
// command, so it is not asked; one whose page stands while a navigation
// has not committed holds them too, which the probes tell from the
// browser's answer and the tab's events (TimeoutNavigating). err is set
// when the probes could not tell, e.g. because the tab is refused or
// closing.
func (t *Tab) busy(ctx context.Context) (tabstate.TimeoutCause, tabstate.Probes, error) {
	if !t.State().Committed {
		return tabstate.TimeoutLoading, tabstate.Probes{}, errNotProbed
	}
	sent := time.Now()
	var visibility evaluateResult
	errs := together(
		func() error {
			return t.probe(ctx, func(ctx context.Context) error {
				return t.s.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: "document.visibilityState", ReturnByValue: true}, &visibility)
			})
		},
		func() error {
			return t.probe(ctx, func(ctx context.Context) error {
				return t.s.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: true}, nil)
			})
		},
		func() error {
			return t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, "Performance.getMetrics", nil, nil) })
		},
		func() error { return t.b.browserCall(ctx, "Browser.getVersion", nil, nil) },
	)
	if errors.Is(ctx.Err(), context.Canceled) {
		return tabstate.TimeoutUnknown, tabstate.Probes{}, errNotProbed // the call answered, or the Tab closed
	}
	// The browser's answer to this round is one of the link's round
	// trips, read after it.
	p := tabstate.Probes{Evaluate: errs[0], Timer: errs[1], Interrupt: errs[2], Browser: errs[3], Due: t.b.patience()}
	p.Navigating, p.NavigationURL = t.navigation()
	if d, ok := ctx.Deadline(); ok {
		p.Window = d.Sub(sent)
	}
	if errs[0] == nil {
		_ = json.Unmarshal(visibility.Result.Value, &p.Visibility)
	}
	cause, err := tabstate.Diagnose(p)
	return cause, p, err
}

// navigation reports whether a main-frame navigation is under way, as the
// tab's events tell, and the URL it loads: Chrome holds the page's calls
// until it commits.
func (t *Tab) navigation() (bool, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.tab.Navigating() {
		return false, ""
	}
	return true, t.tab.State().URL
}

// unproven says what the probes found when they had too little time to
// tell why a call on the page at url did not answer: what did answer, and
// what did not, in the time they had.
func unproven(p tabstate.Probes, url, op string) string {
	what := "the " + opName(op)
	if op == OpWait {
		what = "an evaluate" // a wait asks the page nothing of its own
	}
	had := "in the " + p.Window.Round(time.Millisecond).String() + " its probes had before the deadline"
	needs := p.Due.Round(time.Millisecond).String()
	if p.Browser == nil {
		return "page " + tabstate.ShownURL(url) + " answered neither " + what + " nor an interrupt (Performance.getMetrics) " + had +
			", though the browser process did: too little time to tell a busy script from a hung renderer, which takes " + needs
	}
	return "nothing answered " + had + ", not even the browser process (Browser.getVersion): too little time to tell " +
		"a silent connection from a slow link or a loaded machine, which takes " + needs
}

// terminateScript stops the script running on the page. Chrome handles
// Runtime.terminateExecution by interrupting the running script, so it
// answers while a loop holds the main thread.
func (t *Tab) terminateScript() error {
	ctx, cancel := context.WithTimeout(t.life, t.b.terminateBound())
	defer cancel()
	err := t.terminateWithin(ctx)
	if err != nil {
		t.logf("tabguard: terminating a runaway script failed", err)
	}
	return err
}

// terminateWithin sends Runtime.terminateExecution within ctx, counting it
// for the calls in flight (terminatedDuring) and telling the Trace.
func (t *Tab) terminateWithin(ctx context.Context) error {
	t.mu.Lock()
	t.terminations++
	t.mu.Unlock()
	err := t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, "Runtime.terminateExecution", nil, nil) })
	t.terminated(err)
	return err
}

// probe runs fn on the tab as a call in flight, so a crash or Close cuts it
// short.
func (t *Tab) probe(ctx context.Context, fn func(context.Context) error) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	call := &inflight{cut: stop}
	if err := t.enter(call, nil); err != nil {
		return err
	}
	defer t.leave(call)
	return fn(ctx)
}

// together runs the calls at once and returns their errors, in order.
func together(calls ...func() error) []error {
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i+1] = call()
		}()
	}
	errs[0] = calls[0]()
	wg.Wait()
	return errs
}
