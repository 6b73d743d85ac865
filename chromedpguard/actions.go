package chromedpguard

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
)

// Guard returns an action that runs a under w's guard, for chromedp.Run on
// the watched tab: refused up front when the tab cannot answer, bounded by
// ctx's deadline, or Options.EvalTimeout, and cut short when the renderer dies, a dialog
// opens, the tab closes or the browser goes away, with the errors of
// [Watcher.Eval]:
//
//	err := chromedp.Do(ctx, chromedpguard.Guard(w, chromedp.Click(chromedp.CSS("#buy"))))
//
// The limit holds for the action's own waits too: an action that waits for
// an element (chromedp.WaitVisible, chromedp.Nodes) gives up at
// that deadline, with a timeout that says the action never finished.
// Run on another tab, it fails with [ErrInvalidArgument]. a finds w in its
// ctx with [FromContext].
func Guard[T any](w *Watcher, a chromedp.Action[T]) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		var v T
		if t != w.target {
			return v, fmt.Errorf("%w: Guard runs on tab %s, not on %s", ErrInvalidArgument, w.target.TargetID, t.TargetID)
		}
		err := w.t.DoAction(ctx, engine.OpGuard, func(ctx context.Context) error {
			var err error
			v, err = a(withWatcher(ctx, w), t)
			return err
		})
		return v, err
	}
}

// GuardSteps is [Guard] for a list of steps, as chromedp.Steps joins them:
// it runs them in order, stopping at the first error, as one guarded call
// under one limit. Its timeout, or a refusal that cut it short, names the
// step that was running by its place and the chromedp func that made it,
// "action 4 of 6, chromedp.Evaluate" (a query's is chromedp.QueryAfter),
// so a program can tell the load from the print. Each step finds w in its
// ctx with [FromContext].
//
//	err := chromedp.Do(ctx, chromedpguard.GuardSteps(w,
//		chromedp.Navigate(url),
//		chromedp.WaitReady(chromedp.CSS("body")),
//		printToFile,
//	))
func GuardSteps(w *Watcher, steps ...chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		if t != w.target {
			return chromedp.Void{}, fmt.Errorf("%w: GuardSteps runs on tab %s, not on %s", ErrInvalidArgument, w.target.TargetID, t.TargetID)
		}
		at := new(engine.Steps)
		err := w.t.DoAction(engine.WithSteps(ctx, at), engine.OpGuard, func(ctx context.Context) error {
			ctx = withWatcher(ctx, w)
			for i, step := range steps {
				at.At(engine.StepName(i, len(steps), step))
				if _, err := step(ctx, t); err != nil {
					return err
				}
			}
			return nil
		})
		return chromedp.Void{}, err
	}
}

// Evaluate returns an action that evaluates the JavaScript expression js
// through [Watcher.Eval] and decodes its value into a T, as
// chromedp.Evaluate does:
//
//	ready, err := chromedp.Run(ctx, chromedpguard.Evaluate[bool](w, `document.readyState === "complete"`))
//
// js is one expression, such as chromedp.Evaluate's `document.title`;
// statements go in a function. Unlike chromedp.Evaluate, a promise the
// expression yields is awaited, as chromedp's EvalAwaitPromise would, and
// the expression may use await: `await fetch(u).then(r => r.status)`.
//
// js may also be a function definition, such as `(a, b) => a + b` or
// `async function (sel) {...}`, which Evaluate calls with args, as
// [CallFunction] does. An expression takes no args; to call a function
// that an expression names (`window.check`), use CallFunction.
//
// undefined and null leave T's zero value. T may be *runtime.RemoteObject
// for the result itself.
func Evaluate[T any](w *Watcher, js string, args ...any) chromedp.Action[T] {
	fn, err := engine.EvaluateFunction(js, len(args))
	// Each action is a closure of its own, which a guarded step's name
	// reads (engine.StepName): "chromedpguard.Evaluate".
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		if err != nil {
			var v T
			return v, err
		}
		return call[T](ctx, t, w, "Evaluate", fn, args)
	}
}

// CallFunction returns an action that calls the JavaScript function js
// with args through [Watcher.Eval], awaiting a returned promise, and
// decodes its result into a T:
//
//	n, err := chromedp.Run(ctx, chromedpguard.CallFunction[int](w, `(a, b) => a + b`, 1, 2))
//
// js is anything whose value is a function: a definition, or an
// expression that names one, such as `window.check`, where [Evaluate]
// would answer the function itself as the expression's value.
// undefined and null leave T's zero value. T may be *runtime.RemoteObject
// for the result itself.
func CallFunction[T any](w *Watcher, js string, args ...any) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		return call[T](ctx, t, w, "CallFunction", js, args)
	}
}

// call runs the action of Evaluate or CallFunction (named by name) on t:
// the function fn with args.
func call[T any](ctx context.Context, t *chromedp.Target, w *Watcher, name, fn string, args []any) (T, error) {
	var v T
	if t != w.target {
		return v, fmt.Errorf("%w: %s runs on tab %s, not on %s", ErrInvalidArgument, name, w.target.TargetID, t.TargetID)
	}
	res, err := w.Eval(ctx, fn, args...)
	if err != nil {
		return v, err
	}
	if p, ok := any(&v).(**runtime.RemoteObject); ok {
		*p = res
		return v, nil
	}
	if len(res.Value) == 0 || string(res.Value) == "null" {
		return v, nil
	}
	if err := json.Unmarshal(res.Value, &v); err != nil {
		return v, fmt.Errorf("decode the result %.40q into %T: %w", res.Value, v, err)
	}
	return v, nil
}
