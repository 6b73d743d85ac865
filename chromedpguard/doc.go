// Package chromedpguard makes calls on a chromedp tab deadline-safe: every
// call answers, in time, with its real reason, as package tabguard does for
// go-rod/rod, with the same errors and without linking rod.
//
// A chromedp tab whose renderer crashed, that shows a JavaScript dialog or
// is paused in the debugger answers nothing: chromedp.Run waits until its
// context ends, and a crash surfaces as "context deadline exceeded". A
// [Watcher] follows the tab through its CDP events (chromedp.Listen and
// chromedp.ListenBrowser), refuses a tab that cannot answer before sending
// anything, and fails calls in flight the moment the renderer dies, a
// dialog opens, the tab closes or the browser goes away.
//
//   - [Watch] and [WatchBrowser] follow one tab, or every tab of a browser
//     through one listener ([BrowserWatcher.Tabs] lists them).
//   - [Watcher.Eval], [Watcher.DOM], [Watcher.ReadDOM] and [Watcher.Do]
//     call the tab under a deadline; [Guard] and [Evaluate] are the same as
//     actions for chromedp.Run.
//   - [Watcher.Frames] lists the tab's iframes, and [Watcher.EvalFrame]
//     (or DOMOptions.Frame) calls one of them under the same deadline,
//     an out-of-process iframe through a session of its own target.
//   - [Watcher.Navigate], [Watcher.Reload] and [Watcher.HandleDialog]
//     change the tab and return once the change has happened.
//   - [NewRemoteAllocator] connects to a browser pool with a transport that
//     names why a connection ended.
//
// The errors are package tabstate's values, shared with the rod backend:
// errors.Is(err, tabguard.ErrTabCrashed) and errors.Is(err,
// chromedpguard.ErrTabCrashed) are the same test.
//
// Typical use:
//
//	ctx, cancel := chromedp.NewContext(allocCtx)
//	defer cancel()
//	w, err := chromedpguard.Watch(ctx, &chromedpguard.Options{EvalTimeout: 5 * time.Second})
//	if err != nil {
//		return err
//	}
//	defer w.Close()
//	if err := w.Navigate(ctx, url); err != nil {
//		return err // e.g. tab has no document: net::ERR_NAME_NOT_RESOLVED loading https://…
//	}
//	// Navigate returns at the commit; wait for the load event too.
//	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded }); err != nil {
//		return err
//	}
//	title, err := chromedp.Run(ctx, chromedpguard.Evaluate[string](w, `() => document.title`))
//	if errors.Is(err, chromedpguard.ErrTabCrashed) {
//		err = w.Reload(ctx) // the next eval works as soon as it returns
//	}
package chromedpguard
