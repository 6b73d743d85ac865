// Package chromedp015guard makes calls on a tab of chromedp v0.9.5 to
// v0.15.x deadline-safe: the releases whose chromedp.Run takes Actions, as
// most programs on chromedp still use. It gives the guarantees and the
// errors of package chromedpguard, which needs chromedp v0.16 or newer, and
// of package tabguard on rod, from the same engine; a program adopts it
// without changing its chromedp version or its go directive (Go 1.23).
//
// A chromedp tab whose renderer crashed, that shows a JavaScript dialog or
// is paused in the debugger answers nothing: chromedp.Run waits until its
// context ends. A [Watcher] follows the tab through its CDP events
// (chromedp.ListenTarget and chromedp.ListenBrowser), refuses a tab that
// cannot answer before sending anything, and fails calls in flight the
// moment the renderer dies, a dialog opens, the tab closes or the browser
// goes away. [Watcher.Frames] lists the tab's iframes, and
// [Watcher.EvalFrame] (or DOMOptions.Frame) calls one of them under the
// same guard, an out-of-process iframe through a session of its own.
//
// Typical use:
//
//	ctx, cancel := chromedp.NewContext(allocCtx)
//	defer cancel()
//	w, err := chromedp015guard.Watch(ctx, &chromedp015guard.Options{EvalTimeout: 5 * time.Second})
//	if err != nil {
//		return err
//	}
//	defer w.Close()
//	var title string
//	err = chromedp.Run(ctx,
//		chromedp015guard.Guard(w, chromedp.Navigate(url)),
//		chromedp015guard.Evaluate(w, `() => document.title`, &title))
//	if errors.Is(err, chromedp015guard.ErrTabCrashed) {
//		err = w.Reload(ctx) // the next call works as soon as it returns
//	}
package chromedp015guard
