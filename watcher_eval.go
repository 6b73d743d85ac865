package tabguard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/js"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// Eval runs the JavaScript function js on the tab with args and returns its
// result by value, awaiting a returned promise, as [rod.Page.Eval] does:
// w.Eval(ctx, `(a, b) => a + b`, 1, 2).
//
// It refuses up front with the [*BlockedError] of [Watcher.Blocked], making no
// CDP call. Otherwise it evaluates with the deadline of [EvalWithTimeout]
// (Options.EvalTimeout) and returns early with ErrTabCrashed the moment the
// renderer dies, ErrDialogOpen when a JavaScript dialog opens, ErrPaused
// when the debugger pauses the page, ErrNavigated when the page navigates
// away under the eval, ErrTabClosed when the tab closes, ErrBrowserGone when
// the browser does, and ctx.Err() when ctx is done. A timeout says whether
// the tab was still loading, busy running script, or answering while the
// eval's promise never settled (see Options.TerminateOnTimeout). A
// JavaScript exception comes back as a [*rod.EvalError].
//
// Args are sent as JSON, except a [*proto.RuntimeRemoteObject], which is
// passed by reference. Eval calls Runtime.evaluate (or Runtime.callFunctionOn
// for remote-object args) directly, on the caller's goroutine: it never
// takes rod's per-page execution-context lock, so another stuck rod call on
// the same page cannot hold it past its deadline.
func (w *Watcher) Eval(ctx context.Context, js string, args ...any) (*proto.RuntimeRemoteObject, error) {
	call, err := evalCall(js, args)
	if err != nil {
		return nil, err
	}
	var res *proto.RuntimeRemoteObject
	err = w.do(ctx, func(p *rod.Page) error {
		var err error
		res, err = call(p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Do runs fn under the guard of [Watcher.Eval], for CDP calls other than an
// eval, such as proto.InputDispatchMouseEvent: it refuses a tab that cannot
// answer without calling fn, bounds fn by Options.EvalTimeout, and cuts it
// short when the renderer dies, a dialog opens or the tab closes, with the
// same errors as Eval. fn must make its calls through the page it is given,
// whose context carries the deadline and the cut-off; a fn that ignores it
// is waited for.
func (w *Watcher) Do(ctx context.Context, fn func(page *rod.Page) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil func", ErrInvalidArgument)
	}
	return w.do(ctx, fn)
}

// do runs fn against the tab under the eval deadline, unless the tab is
// refused; a crash, a closed tab or Close cuts fn short through its context.
func (w *Watcher) do(ctx context.Context, fn func(*rod.Page) error) error {
	return w.guarded(ctx, nil, func(call *inflight, tctx context.Context) error {
		check := w.checkBusy(w.timeout)
		err := fn(w.page.Context(tctx))
		check.stop(tctx.Err() == nil)
		switch {
		case err == nil:
		case w.terminatedDuring(call, err):
			err = w.blocked(ErrTerminated)
		case w.navigatedDuring(call, err):
			err = w.blocked(ErrNavigated)
		}
		return w.finish(ctx, tctx, err, check)
	})
}

// guarded admits a call unless the tab refuses it (allow names the
// refusals it goes ahead despite) and runs it with a context that ends at
// the eval deadline, when ctx does, or when the tab dies under it.
func (w *Watcher) guarded(ctx context.Context, allow func(error) bool, run func(call *inflight, tctx context.Context) error) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	cctx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	tctx, cancel := withEvalTimeout(cctx, w.timeout)
	defer cancel()
	call := &inflight{cancel: cut}
	if err := w.admit(ctx, call, allow); err != nil {
		return err
	}
	defer w.leave(call)
	return run(call, tctx)
}

// terminatedDuring reports whether Runtime.terminateExecution stopped
// call's script. Chrome 156 answers such an evaluate (awaitPromise,
// returnByValue) with a bare -32603 "Internal error", which is only taken
// for a termination when this watcher terminated a script meanwhile; a
// termination by another client then passes through as it is. An
// "Execution was terminated" error always counts.
func (w *Watcher) terminatedDuring(call *inflight, err error) bool {
	var ce *cdp.Error
	switch {
	case !errors.As(err, &ce):
		return false
	case ce.Code == -32000 && ce.Message == "Execution was terminated":
		return true
	case ce.Code != -32603:
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.terminations != call.terminations
}

// navigatedDuring reports whether err is Chrome's bare "Internal error",
// which Runtime.evaluate can give when its document goes away under it,
// and navigation news arrived while call ran, or the tab is now refused:
// then that is the reason. The news may trail the reply by a few
// milliseconds, so it is awaited for up to eventGrace. Otherwise the error
// passes through as it is.
func (w *Watcher) navigatedDuring(call *inflight, err error) bool {
	var ce *cdp.Error
	if !errors.As(err, &ce) || ce.Code != -32603 {
		return false
	}
	for start := time.Now(); ; time.Sleep(eventGrace / 10) {
		w.mu.Lock()
		news := w.tab.Seq() != call.navSeq || w.refusal() != nil
		w.mu.Unlock()
		if news || time.Since(start) >= eventGrace {
			return news
		}
	}
}

// finish turns what the CDP call returned into the package's errors.
func (w *Watcher) finish(parent, tctx context.Context, err error, check *busyCheck) error {
	if err == nil {
		return nil
	}
	err = w.explain(deadlineError(parent, tctx, w.classify(err)))
	var te *timeoutError
	if errors.As(err, &te) {
		err = w.timedOut(check, te.Limit)
		w.logf("tabguard: eval timed out", err)
	}
	return err
}

// explain completes a crash error cut short by Inspector.targetCrashed,
// which carries no status: Chrome sends Target.targetCrashed, with the
// status, within milliseconds of it, so the error waits up to eventGrace for
// it, and a crash reads the same wherever it surfaces.
func (w *Watcher) explain(err error) error {
	var be *BlockedError
	if !errors.As(err, &be) || be.Reason != ErrTabCrashed || be.Detail != "" {
		return err
	}
	timer := time.NewTimer(eventGrace)
	defer timer.Stop()
	for {
		w.mu.Lock()
		s, ch := w.tab.State(), w.changed
		w.mu.Unlock()
		if !s.Crashed || s.CrashReason != "" {
			return w.blocked(ErrTabCrashed)
		}
		select {
		case <-ch:
		case <-timer.C:
			return w.blocked(ErrTabCrashed)
		}
	}
}

// classify maps the CDP errors that mean the tab cannot answer to the
// package's sentinels; anything else passes through.
func (w *Watcher) classify(err error) error {
	var ce *cdp.Error
	isCDP := errors.As(err, &ce)
	switch {
	case isCDP && ce.Code == -32000 && ce.Message == "Target crashed":
		// Chrome answers held calls so when the crashed tab is navigated
		// again; the state already has the crash from its events.
		return w.blocked(ErrTabCrashed)
	case isCDP && (ce.Code == cdp.ErrSessionNotFound.Code ||
		ce.Code == -32602 && strings.Contains(ce.Message, "No target with given id")):
		return w.blocked(ErrTabClosed)
	case isCDP && ce.Code == -32000 && (ce.Message == "Inspected target navigated or closed" ||
		strings.HasPrefix(ce.Message, "Cannot find default execution context") ||
		ce.Message == cdp.ErrCtxNotFound.Message):
		// The document the eval ran in was replaced (or, if the state says
		// so, the tab closed). Retrying is the caller's call, within its
		// own deadline, never a silent loop here.
		return w.blocked(ErrNavigated)
	case gone(err):
		w.bw.disconnected(goneReason(err))
		return w.blocked(ErrBrowserGone)
	}
	return err
}

// blocked returns the state's refusal if it has one, else one for reason.
func (w *Watcher) blocked(reason error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.refusal(); err != nil {
		return err
	}
	return &BlockedError{Reason: reason, URL: w.tab.State().URL}
}

// evalCall checks js and args once and returns the CDP call that runs them.
func evalCall(fn string, args []any) (func(*rod.Page) (*proto.RuntimeRemoteObject, error), error) {
	fn = strings.Trim(fn, "\t\n\v\f\r ;")
	if fn == "" {
		return nil, fmt.Errorf("%w: empty script: pass a function such as `() => document.title`", ErrInvalidArgument)
	}
	var (
		this    proto.RuntimeRemoteObjectID
		encoded = make([]string, len(args))
		callArg = make([]*proto.RuntimeCallArgument, len(args))
	)
	for i, a := range args {
		switch a := a.(type) {
		case *js.Function:
			return nil, fmt.Errorf("%w: arg %d: rod's js helpers are not supported: pass JSON values or remote objects", ErrInvalidArgument, i)
		case *proto.RuntimeRemoteObject:
			if a == nil || a.ObjectID == "" {
				return nil, fmt.Errorf("%w: arg %d: remote object without an object ID", ErrInvalidArgument, i)
			}
			this = a.ObjectID
			callArg[i] = &proto.RuntimeCallArgument{ObjectID: a.ObjectID}
		default:
			b, err := json.Marshal(a)
			if err != nil {
				return nil, fmt.Errorf("%w: arg %d: %w", ErrInvalidArgument, i, err)
			}
			encoded[i] = string(b)
			callArg[i] = &proto.RuntimeCallArgument{Value: gson.New(a)}
		}
	}
	if this == "" {
		// Runtime.evaluate needs no execution-context ID: it runs in the main
		// frame's current document, so there is nothing to look up or retry.
		req := proto.RuntimeEvaluate{
			Expression:    "(" + fn + ")(" + strings.Join(encoded, ",") + ")",
			ReturnByValue: true,
			AwaitPromise:  true,
		}
		return func(p *rod.Page) (*proto.RuntimeRemoteObject, error) {
			res, err := req.Call(p)
			return result(res, err)
		}, nil
	}
	// A remote object pins the execution context: call the function on it.
	req := proto.RuntimeCallFunctionOn{
		ObjectID:            this,
		FunctionDeclaration: "function(...args) { return (" + fn + ").apply(globalThis, args) }",
		Arguments:           callArg,
		ReturnByValue:       true,
		AwaitPromise:        true,
	}
	return func(p *rod.Page) (*proto.RuntimeRemoteObject, error) {
		res, err := req.Call(p)
		if err != nil {
			return nil, err
		}
		return result(&proto.RuntimeEvaluateResult{Result: res.Result, ExceptionDetails: res.ExceptionDetails}, nil)
	}, nil
}

func result(res *proto.RuntimeEvaluateResult, err error) (*proto.RuntimeRemoteObject, error) {
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, &rod.EvalError{RuntimeExceptionDetails: res.ExceptionDetails}
	}
	return res.Result, nil
}
