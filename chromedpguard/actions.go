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
// Options.EvalTimeout, and cut short when the renderer dies, a dialog
// opens, the tab closes or the browser goes away, with the errors of
// [Watcher.Eval]:
//
//	err := chromedp.Do(ctx, chromedpguard.Guard(w, chromedp.Click(chromedp.CSS("#buy"))))
//
// The limit holds for the action's own waits too: an action that waits for
// an element (chromedp.WaitVisible, chromedp.Nodes) gives up at
// Options.EvalTimeout, with a timeout that says the action never finished.
// Run on another tab, it fails with [ErrInvalidArgument].
func Guard[T any](w *Watcher, a chromedp.Action[T]) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		var v T
		if t != w.target {
			return v, fmt.Errorf("%w: Guard runs on tab %s, not on %s", ErrInvalidArgument, w.target.TargetID, t.TargetID)
		}
		err := w.t.DoAction(ctx, engine.OpGuard, func(ctx context.Context) error {
			var err error
			v, err = a(ctx, t)
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
// so a program can tell the load from the print:
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

// Evaluate returns an action that runs the JavaScript function js with args
// through [Watcher.Eval] and decodes its result into a T, as
// chromedp.Evaluate does for an expression:
//
//	n, err := chromedp.Run(ctx, chromedpguard.Evaluate[int](w, `(a, b) => a + b`, 1, 2))
//
// undefined and null leave T's zero value. T may be *runtime.RemoteObject
// for the result itself.
func Evaluate[T any](w *Watcher, js string, args ...any) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		var v T
		if t != w.target {
			return v, fmt.Errorf("%w: Evaluate runs on tab %s, not on %s", ErrInvalidArgument, w.target.TargetID, t.TargetID)
		}
		res, err := w.Eval(ctx, js, args...)
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
}
