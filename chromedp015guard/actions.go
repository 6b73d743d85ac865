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
// Options.EvalTimeout, and cut short when the renderer dies, a dialog
// opens, the tab closes or the browser goes away, with the errors of
// [Watcher.Eval]:
//
//	err := chromedp.Run(ctx, chromedp015guard.Guard(w, chromedp.Click("#buy")))
//
// The limit holds for the action's own waits too: an action that waits for
// an element (chromedp.WaitVisible, chromedp.Nodes) gives up at
// Options.EvalTimeout, with a timeout that says the action never finished.
// Run on another tab, it fails with [ErrInvalidArgument].
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
			return w.t.DoAction(ctx, engine.OpGuard, a.Do)
		}
		steps := new(engine.Steps)
		return w.t.DoAction(engine.WithSteps(ctx, steps), engine.OpGuard, func(ctx context.Context) error {
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

// Evaluate returns an action that runs the JavaScript function js with
// args through [Watcher.Eval] and decodes its result into res, as
// chromedp.Evaluate does for an expression:
//
//	var n int
//	err := chromedp.Run(ctx, chromedp015guard.Evaluate(w, `(a, b) => a + b`, &n, 1, 2))
//
// undefined and null leave res as it is. res may be a
// **runtime.RemoteObject for the result itself, or nil to drop it.
func Evaluate(w *Watcher, js string, res any, args ...any) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		obj, err := w.Eval(ctx, js, args...)
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
	})
}
