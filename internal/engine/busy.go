package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// terminateTimeout bounds Runtime.terminateExecution, which Chrome answers
// in milliseconds even while a loop holds the main thread, on an idle
// machine; on a loaded one (measured: load average 25 on 2 cores) the
// answer took over 100 ms.
const terminateTimeout = 500 * time.Millisecond

// busy finds out, by ctx's deadline, why a call has not answered. It sends
// the four probes of [tabstate.Probes] at once and lets
// [tabstate.Diagnose] read their answers. A tab in its first load holds
// every renderer command, so it is not asked. err is set when the probes
// could not tell, e.g. because the tab is refused or closing.
func (t *Tab) busy(ctx context.Context) (tabstate.TimeoutCause, error) {
	if !t.State().Committed {
		return tabstate.TimeoutLoading, errNotProbed
	}
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
		func() error { return t.b.d.Call(ctx, "Browser.getVersion", nil, nil) },
	)
	if errors.Is(ctx.Err(), context.Canceled) {
		return tabstate.TimeoutUnknown, errNotProbed // the call answered, or the Tab closed
	}
	p := tabstate.Probes{Evaluate: errs[0], Timer: errs[1], Interrupt: errs[2], Browser: errs[3]}
	if errs[0] == nil {
		_ = json.Unmarshal(visibility.Result.Value, &p.Visibility)
	}
	return tabstate.Diagnose(p)
}

// terminateScript stops the script running on the page. Chrome handles
// Runtime.terminateExecution by interrupting the running script, so it
// answers while a loop holds the main thread.
func (t *Tab) terminateScript() error {
	ctx, cancel := context.WithTimeout(t.life, terminateTimeout)
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
