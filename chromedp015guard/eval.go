package chromedp015guard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
)

// Eval runs the JavaScript function js on the tab with args and returns its
// result by value, awaiting a returned promise:
// w.Eval(ctx, `(a, b) => a + b`, 1, 2). ctx is any context; the call goes
// to the watched tab.
//
// It refuses up front with the [*BlockedError] of [Watcher.Blocked],
// making no CDP call. Otherwise it evaluates within ctx's deadline, or Options.EvalTimeout and
// returns early with ErrTabCrashed the moment the renderer dies,
// ErrDialogOpen when a JavaScript dialog opens, ErrPaused when the debugger
// pauses the page, ErrNavigated when the page navigates away under the
// eval, ErrTabClosed when the tab closes, ErrBrowserGone when the browser
// does. A timeout, the watcher's or ctx's own deadline, is a
// [*TimeoutError] saying what the tab was doing. A JavaScript exception is
// a [*runtime.ExceptionDetails], as chromedp.Evaluate returns.
//
// Args are sent as JSON, except a [*runtime.RemoteObject], which is passed
// by reference.
func (w *Watcher) Eval(ctx context.Context, js string, args ...any) (*runtime.RemoteObject, error) {
	call, err := evalCall(js, args)
	if err != nil {
		return nil, err
	}
	var res *runtime.RemoteObject
	err = w.t.Do(ctx, engine.OpEval, func(ctx context.Context) error {
		var err error
		res, err = call(cdp.WithExecutor(ctx, w.target))
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Do runs fn under the guard of [Watcher.Eval], for calls other than an
// eval: it refuses a tab that cannot answer without calling fn, bounds fn
// by ctx's deadline, or Options.EvalTimeout, and cuts it short when the renderer dies, a
// dialog opens or the tab closes, with the same errors as Eval. ctx must be
// the tab's chromedp context or one derived from it, and fn must make its
// calls with the context it is given (chromedp.Run(ctx, ...)), which
// carries the deadline and the cut-off, and w for [FromContext].
func (w *Watcher) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil func", ErrInvalidArgument)
	}
	if err := w.own(ctx); err != nil {
		return err
	}
	return w.t.DoAction(ctx, engine.OpDo, func(ctx context.Context) error { return fn(withWatcher(ctx, w)) })
}

// own checks that ctx is a chromedp context of the watched tab.
func (w *Watcher) own(ctx context.Context) error {
	if ctx != nil {
		if c := chromedp.FromContext(ctx); c != nil && c.Target == w.target {
			return nil
		}
	}
	return fmt.Errorf("%w: not the watched tab's chromedp context: pass the context Watch was given, or one derived from it", ErrInvalidArgument)
}

// evalCall checks js and args once and returns the call that runs them,
// under a context that carries the tab as cdproto's executor.
func evalCall(fn string, args []any) (func(ctx context.Context) (*runtime.RemoteObject, error), error) {
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
		// Chrome awaits nothing: a promise is awaited by a second call.
		p := runtime.Evaluate(engine.AwaitedCall(fn, encoded)).WithReturnByValue(true)
		return func(ctx context.Context) (*runtime.RemoteObject, error) {
			obj, exc, err := p.Do(ctx)
			return result(obj, exc, err, func(expr string) (*runtime.RemoteObject, *runtime.ExceptionDetails, error) {
				return runtime.Evaluate(expr).WithReturnByValue(true).WithAwaitPromise(true).Do(ctx)
			})
		}, nil
	}
	// A remote object pins the execution context: call the function on it,
	// and await a promise it returns in that context.
	p := runtime.CallFunctionOn(engine.AwaitedFunction(fn)).WithObjectID(this).WithArguments(callArg).WithReturnByValue(true)
	return func(ctx context.Context) (*runtime.RemoteObject, error) {
		obj, exc, err := p.Do(ctx)
		return result(obj, exc, err, func(expr string) (*runtime.RemoteObject, *runtime.ExceptionDetails, error) {
			return runtime.CallFunctionOn("function() { return " + expr + " }").WithObjectID(this).
				WithReturnByValue(true).WithAwaitPromise(true).Do(ctx)
		})
	}, nil
}

// result is an eval's result: its value, its exception as chromedp reports
// one, or, when the page kept a promise, what settle (the second call,
// which awaits it) answers.
func result(obj *runtime.RemoteObject, exc *runtime.ExceptionDetails, err error,
	settle func(expr string) (*runtime.RemoteObject, *runtime.ExceptionDetails, error)) (*runtime.RemoteObject, error) {
	if err == nil && exc == nil && obj != nil {
		if expr, ok := engine.Pending(obj.Value); ok {
			obj, exc, err = settle(expr)
			if err == nil && exc == nil && obj != nil && engine.Gone(obj.Value) {
				return nil, ErrNavigated
			}
		}
	}
	switch {
	case err != nil:
		return nil, err
	case exc != nil:
		return nil, exc
	case obj == nil:
		return &runtime.RemoteObject{Type: runtime.TypeUndefined}, nil
	}
	return obj, nil
}
