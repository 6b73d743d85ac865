package tabguard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/js"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/ysmood/gson"
)

// Eval runs the JavaScript function js on the tab with args and returns its
// result by value, awaiting a returned promise, as [rod.Page.Eval] does:
// w.Eval(ctx, `(a, b) => a + b`, 1, 2).
//
// It refuses up front with the [*BlockedError] of [Watcher.Blocked], making no
// CDP call. Otherwise it evaluates within ctx's deadline, or
// Options.EvalTimeout when ctx has none, and returns early with ErrTabCrashed the moment the
// renderer dies, ErrDialogOpen when a JavaScript dialog opens, ErrPaused
// when the debugger pauses the page, ErrNavigated when the page navigates
// away under the eval, ErrTabClosed when the tab closes, ErrBrowserGone when
// the browser does, and ctx.Err() when ctx is done. A timeout says whether
// the tab was still loading, busy running script, or answering while the
// eval's promise never settled (see Options.TerminateOnTimeout). A
// JavaScript exception comes back as an [*EvalError], which errors.As also
// reads into rod's own exception error (*rod.EvalError, *rod.ErrEval before
// rod v0.114.8), as a program written for rod's Page.Eval does.
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
	err = w.t.Do(ctx, engine.OpEval, func(ctx context.Context) error {
		var err error
		res, err = call(w.page.Context(ctx))
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Do runs fn under the guard of [Watcher.Eval], for CDP calls other than an
// eval, such as proto.InputDispatchMouseEvent: it refuses a tab that cannot
// answer without calling fn, bounds fn by ctx's deadline, or Options.EvalTimeout, and cuts it
// short when the renderer dies, a dialog opens or the tab closes, with the
// same errors as Eval. fn must make its calls through the page it is given,
// whose context carries the deadline and the cut-off; a fn that ignores it
// is waited for. That page, and what fn gets from it (an element, a
// frame), is bound to the call and ends with it: to keep one, rebind it
// with its Context method.
//
// A call cut short is never a success, whatever fn answers: rod's wait
// helpers (Page.WaitEvent, WaitNavigation) answer nothing when their
// context ends, so a fn that waits with one answers nil at the deadline.
// Do then answers the [*TimeoutError], with what the tab was doing (a
// script that holds the page, a load that never ended), or the crash, the
// dialog, the download or the Close that cut it short.
//
// A navigation of fn's that becomes a download (p.Navigate to a file, a
// click on a link to one, then a wait for the load) answers [ErrDownload]
// at once, as [Watcher.Navigate] does, never rod's net::ERR_ABORTED or a
// timeout: the page stays, and answers the next call. Chrome tells of a
// download only after the reply to the navigation, so a fn that answered
// nil before it told (it clicked the link and returned) keeps its nil, and
// the download then cuts short the next call it meets in flight. On a
// browser from [Connect], whose transport is the package's own, a timeout
// also names the last CDP method fn sent: "guarded call (last sent
// Runtime.evaluate) timed out after 10s (...)"; rod's own transport tells
// nothing of the calls a page makes.
func (w *Watcher) Do(ctx context.Context, fn func(page *rod.Page) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil func", ErrInvalidArgument)
	}
	if ctx != nil && w.bw.in.taken.Load() {
		ctx = engine.WithSteps(ctx, &engine.Steps{})
	}
	return w.t.DoAction(ctx, engine.OpDo, func(ctx context.Context) error { return fn(w.page.Context(ctx)) })
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
		// Chrome awaits nothing: a promise is awaited by a second call.
		req := proto.RuntimeEvaluate{Expression: engine.AwaitedCall(fn, encoded), ReturnByValue: true}
		return func(p *rod.Page) (*proto.RuntimeRemoteObject, error) {
			res, err := req.Call(p)
			return result(res, err, func(expr string) (*proto.RuntimeEvaluateResult, error) {
				return proto.RuntimeEvaluate{Expression: expr, ReturnByValue: true, AwaitPromise: true}.Call(p)
			})
		}, nil
	}
	// A remote object pins the execution context: call the function on it,
	// and await a promise it returns in that context.
	req := proto.RuntimeCallFunctionOn{
		ObjectID:            this,
		FunctionDeclaration: engine.AwaitedFunction(fn),
		Arguments:           callArg,
		ReturnByValue:       true,
	}
	on := func(p *rod.Page, call proto.RuntimeCallFunctionOn) (*proto.RuntimeEvaluateResult, error) {
		res, err := call.Call(p)
		if err != nil {
			return nil, err
		}
		return &proto.RuntimeEvaluateResult{Result: res.Result, ExceptionDetails: res.ExceptionDetails}, nil
	}
	return func(p *rod.Page) (*proto.RuntimeRemoteObject, error) {
		res, err := on(p, req)
		return result(res, err, func(expr string) (*proto.RuntimeEvaluateResult, error) {
			return on(p, proto.RuntimeCallFunctionOn{ObjectID: this, FunctionDeclaration: "function() { return " + expr + " }",
				ReturnByValue: true, AwaitPromise: true})
		})
	}, nil
}

// result is an eval's result: its value, its exception as an EvalError,
// or, when the page kept a promise, what settle (the second call, which
// awaits it) answers.
func result(res *proto.RuntimeEvaluateResult, err error, settle func(expr string) (*proto.RuntimeEvaluateResult, error)) (*proto.RuntimeRemoteObject, error) {
	if err == nil && res.ExceptionDetails == nil && res.Result != nil {
		if raw, ok := res.Result.Value.Raw().([]byte); ok {
			if expr, ok := engine.Pending(raw); ok {
				res, err = settle(expr)
				if err == nil && res.ExceptionDetails == nil && res.Result != nil {
					if raw, ok := res.Result.Value.Raw().([]byte); ok && engine.Gone(raw) {
						return nil, ErrNavigated
					}
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, &EvalError{RuntimeExceptionDetails: res.ExceptionDetails}
	}
	return res.Result, nil
}
