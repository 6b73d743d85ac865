package chromedp015guard

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
//	err := chromedp.Run(ctx, chromedp015guard.Guard(w, chromedp.Click("#buy")))
//
// The limit holds for the action's own waits too: an action that waits for
// an element (chromedp.WaitVisible, chromedp.Nodes) gives up at
// that deadline, with a timeout that says the action never finished.
// Run on another tab, it fails with [ErrInvalidArgument]. a finds w in its
// ctx with [FromContext].
//
// A chromedp.Tasks runs as one guarded call under one limit, and its
// timeout, or a refusal that cut it short, names the action that was
// running by its place and type, "action 4 of 6, *page.PrintToPDFParams",
// so a program can tell the load from the print:
//
//	err := chromedp.Run(ctx, chromedp015guard.Guard(w, chromedp.Tasks{
//		chromedp.Navigate(url),
//		chromedp.WaitReady("body"),
//		chromedp.ActionFunc(func(ctx context.Context) error { ... page.PrintToPDF() ... }),
//	}))
func Guard(w *Watcher, a chromedp.Action) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := w.own(ctx); err != nil {
			return err
		}
		tasks, ok := a.(chromedp.Tasks)
		if !ok {
			return w.t.DoAction(ctx, engine.OpGuard, func(ctx context.Context) error { return a.Do(withWatcher(ctx, w)) })
		}
		steps := new(engine.Steps)
		return w.t.DoAction(engine.WithSteps(ctx, steps), engine.OpGuard, func(ctx context.Context) error {
			ctx = withWatcher(ctx, w)
			for i, task := range tasks {
				steps.At(engine.StepName(i, len(tasks), task))
				if err := task.Do(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Evaluate returns an action that evaluates the JavaScript expression js
// through [Watcher.Eval] and decodes its value into res, as
// chromedp.Evaluate does:
//
//	var ready bool
//	err := chromedp.Run(ctx, chromedp015guard.Evaluate(w, `document.readyState === "complete"`, &ready))
//
// js is one expression, such as chromedp.Evaluate's `document.title`;
// statements go in a function. Unlike chromedp.Evaluate, which awaits
// only with an option that sets WithAwaitPromise(true), a promise the
// expression yields is awaited, and the expression may use await:
// `await fetch(u).then(r => r.status)`.
//
// js may also be a function definition, such as `(a, b) => a + b` or
// `async function (sel) {...}`, which Evaluate calls with args, as
// [CallFunction] does. An expression takes no args; to call a function
// that an expression names (`window.check`), use CallFunction.
//
// undefined and null leave res as it is. res may be a
// **runtime.RemoteObject for the result itself, or nil to drop it.
func Evaluate(w *Watcher, js string, res any, args ...any) chromedp.Action {
	fn, err := engine.EvaluateFunction(js, len(args))
	// Each action is a closure of its own, which a guarded step's name
	// reads (engine.StepName): "chromedp015guard.Evaluate".
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err != nil {
			return err
		}
		return call(ctx, w, fn, res, args)
	})
}

// CallFunction returns an action that calls the JavaScript function js
// with args through [Watcher.Eval], awaiting a returned promise, and
// decodes its result into res:
//
//	var n int
//	err := chromedp.Run(ctx, chromedp015guard.CallFunction(w, `(a, b) => a + b`, &n, 1, 2))
//
// js is anything whose value is a function: a definition, or an
// expression that names one, such as `window.check`, where [Evaluate]
// would answer the function itself as the expression's value.
// undefined and null leave res as it is. res may be a
// **runtime.RemoteObject for the result itself, or nil to drop it.
func CallFunction(w *Watcher, js string, res any, args ...any) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		return call(ctx, w, js, res, args)
	})
}

// call runs the action of Evaluate or CallFunction: the function fn with
// args, into res.
func call(ctx context.Context, w *Watcher, fn string, res any, args []any) error {
	obj, err := w.Eval(ctx, fn, args...)
	switch {
	case err != nil:
		return err
	case res == nil:
		return nil
	}
	if p, ok := res.(**runtime.RemoteObject); ok {
		*p = obj
		return nil
	}
	if len(obj.Value) == 0 || string(obj.Value) == "null" {
		return nil
	}
	if err := json.Unmarshal(obj.Value, res); err != nil {
		return fmt.Errorf("decode the result %.40q into %T: %w", obj.Value, res, err)
	}
	return nil
}
