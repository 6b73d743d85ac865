package chromedpguard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/tabstate"
)

// Eval runs the JavaScript function js on the tab with args and returns its
// result by value, awaiting a returned promise:
// w.Eval(ctx, `(a, b) => a + b`, 1, 2). ctx is any context; the call goes
// to the watched tab.
//
// It refuses up front with the [*BlockedError] of [Watcher.Blocked], making
// no CDP call. Otherwise it evaluates under Options.EvalTimeout and returns
// early with ErrTabCrashed the moment the renderer dies, ErrDialogOpen when
// a JavaScript dialog opens, ErrPaused when the debugger pauses the page,
// ErrNavigated when the page navigates away under the eval, ErrTabClosed
// when the tab closes, ErrBrowserGone when the browser does, and ctx.Err()
// when ctx is done. A timeout is a [*TimeoutError] saying whether the tab
// was still loading, busy running script, or answering while the eval's
// promise never settled. A JavaScript exception is a
// [*chromedp.ExceptionError], as chromedp.Evaluate returns.
//
// Args are sent as JSON, except a [*runtime.RemoteObject], which is passed
// by reference. Eval calls Runtime.evaluate (or Runtime.callFunctionOn for
// remote-object args) directly.
func (w *Watcher) Eval(ctx context.Context, js string, args ...any) (*runtime.RemoteObject, error) {
	call, err := evalCall(js, args)
	if err != nil {
		return nil, err
	}
	var res *runtime.RemoteObject
	err = w.do(ctx, func(ctx context.Context) error {
		var err error
		res, err = call(ctx, w.target)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Do runs fn under the guard of [Watcher.Eval], for calls other than an
// eval: it refuses a tab that cannot answer without calling fn, bounds fn by
// Options.EvalTimeout, and cuts it short when the renderer dies, a dialog
// opens or the tab closes, with the same errors as Eval. ctx must be the
// tab's chromedp context or one derived from it, and fn must make its calls
// with the context it is given (chromedp.Run(ctx, ...), chromedp.Call), which
// carries the deadline and the cut-off.
func (w *Watcher) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil func", ErrInvalidArgument)
	}
	if err := w.own(ctx); err != nil {
		return err
	}
	return w.do(ctx, fn)
}

// own checks that ctx is a chromedp context of the watched tab.
func (w *Watcher) own(ctx context.Context) error {
	if ctx != nil && chromedp.FromContext(ctx) != nil {
		if ch, err := chromedp.Detached(ctx); err == nil && ch == w.detached {
			return nil
		}
	}
	return fmt.Errorf("%w: not the watched tab's chromedp context: pass the context Watch was given, or one derived from it", ErrInvalidArgument)
}

// do runs fn against the tab under the eval deadline, unless the tab is
// refused; a crash, a closed tab or Close cuts fn short through its context.
func (w *Watcher) do(ctx context.Context, fn func(context.Context) error) error {
	return w.guarded(ctx, nil, func(call *inflight, tctx context.Context) error {
		check := w.checkBusy(w.timeout)
		err := fn(tctx)
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
	tctx, cancel := tabstate.WithEvalTimeout(cctx, w.timeout)
	defer cancel()
	call := &inflight{cancel: cut}
	if err := w.admit(ctx, call, allow); err != nil {
		return err
	}
	defer w.leave(call)
	return run(call, tctx)
}

// terminatedDuring reports whether Runtime.terminateExecution stopped
// call's script: "Execution was terminated", or Chrome's bare -32603
// "Internal error" when this watcher terminated a script meanwhile.
func (w *Watcher) terminatedDuring(call *inflight, err error) bool {
	var ce *cdproto.Error
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
// which Runtime.evaluate can give when its document goes away under it, and
// navigation news arrived while call ran (awaited up to eventGrace), or the
// tab is now refused.
func (w *Watcher) navigatedDuring(call *inflight, err error) bool {
	var ce *cdproto.Error
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

// finish turns what the call returned into the package's errors.
func (w *Watcher) finish(parent, tctx context.Context, err error, check *busyCheck) error {
	if err == nil {
		return nil
	}
	err = w.explain(w.deadlineError(parent, tctx, w.classify(err)))
	var te *TimeoutError
	if errors.As(err, &te) {
		to := w.timedOut(check, te.Limit)
		to.Op = te.Op
		err = to
		w.logf("tabguard: eval timed out", err)
	}
	return err
}

// deadlineError is [tabstate.DeadlineError], except that a parent context
// ended because the browser went away gives ErrBrowserGone: chromedp
// cancels every context of a browser whose connection dropped.
func (w *Watcher) deadlineError(parent, tctx context.Context, err error) error {
	err = tabstate.DeadlineError(parent, tctx, err)
	if errors.Is(err, context.Canceled) && w.bw.lost() {
		return w.blocked(ErrBrowserGone)
	}
	return err
}

// explain completes a crash error cut short by Inspector.targetCrashed,
// which carries no status: Target.targetCrashed, with the status, follows
// within milliseconds, so the error waits up to eventGrace for it.
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

// classify maps the errors that mean the tab cannot answer to the
// package's sentinels; anything else passes through.
func (w *Watcher) classify(err error) error {
	var ce *cdproto.Error
	isCDP := errors.As(err, &ce)
	switch {
	case isCDP && ce.Code == -32000 && ce.Message == "Target crashed":
		return w.blocked(ErrTabCrashed)
	case errors.Is(err, chromedp.ErrTargetDetached),
		isCDP && (ce.Code == -32001 || ce.Code == -32602 && strings.Contains(ce.Message, "No target with given id")):
		return w.blocked(ErrTabClosed)
	case isCDP && ce.Code == -32000 && (ce.Message == "Inspected target navigated or closed" ||
		strings.HasPrefix(ce.Message, "Cannot find default execution context") ||
		ce.Message == "Cannot find context with specified id"):
		return w.blocked(ErrNavigated)
	case errors.Is(err, ErrBrowserGone), errors.Is(err, context.Canceled) && w.bw.lost():
		if !w.bw.lost() {
			w.bw.disconnected(goneReason(err))
		}
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

// notAttached reports Chrome's answer while a navigation swaps the tab's
// document.
func notAttached(err error) bool {
	var ce *cdproto.Error
	return errors.As(err, &ce) && ce.Message == "Not attached to an active page"
}

// evalCall checks js and args once and returns the CDP call that runs them.
func evalCall(fn string, args []any) (func(context.Context, cdp.Session) (*runtime.RemoteObject, error), error) {
	fn = strings.Trim(fn, "\t\n\v\f\r ;")
	if fn == "" {
		return nil, fmt.Errorf("%w: empty script: pass a function such as `() => document.title`", ErrInvalidArgument)
	}
	var (
		this    runtime.RemoteObjectID
		encoded = make([]string, len(args))
		callArg = make([]*runtime.CallArgument, len(args))
	)
	for i, a := range args {
		if o, ok := a.(*runtime.RemoteObject); ok {
			if o == nil || o.ObjectID == "" {
				return nil, fmt.Errorf("%w: arg %d: remote object without an object ID", ErrInvalidArgument, i)
			}
			this = o.ObjectID
			callArg[i] = &runtime.CallArgument{ObjectID: o.ObjectID}
			continue
		}
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("%w: arg %d: %w", ErrInvalidArgument, i, err)
		}
		encoded[i], callArg[i] = string(b), &runtime.CallArgument{Value: b}
	}
	if this == "" {
		// Runtime.evaluate needs no execution-context ID: it runs in the
		// main frame's current document, so there is nothing to look up.
		p := runtime.EvaluateParams{
			Expression:    "(" + fn + ")(" + strings.Join(encoded, ",") + ")",
			ReturnByValue: ptr(true), AwaitPromise: ptr(true),
		}
		return func(ctx context.Context, s cdp.Session) (*runtime.RemoteObject, error) {
			res, err := cdp.Call(ctx, s, runtime.Evaluate, p)
			return result(res.Result, res.ExceptionDetails, err)
		}, nil
	}
	// A remote object pins the execution context: call the function on it.
	p := runtime.CallFunctionOnParams{
		ObjectID:            this,
		FunctionDeclaration: "function(...args) { return (" + fn + ").apply(globalThis, args) }",
		Arguments:           callArg,
		ReturnByValue:       ptr(true), AwaitPromise: ptr(true),
	}
	return func(ctx context.Context, s cdp.Session) (*runtime.RemoteObject, error) {
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, p)
		return result(res.Result, res.ExceptionDetails, err)
	}, nil
}

func result(obj *runtime.RemoteObject, exc *runtime.ExceptionDetails, err error) (*runtime.RemoteObject, error) {
	switch {
	case err != nil:
		return nil, err
	case exc != nil:
		return nil, &chromedp.ExceptionError{ExceptionDetails: exc}
	case obj == nil:
		return &runtime.RemoteObject{Type: runtime.RemoteObjectTypeUndefined}, nil
	}
	return obj, nil
}
