// Package tabguard makes page evaluation through [github.com/go-rod/rod]
// deadline-safe: every call on a browser tab answers, in time, with its real
// reason.
//
// A tab whose renderer crashed, whose main frame never committed a document,
// that shows a JavaScript dialog or is paused in the debugger answers
// nothing: rod retries a missing execution context until its context ends,
// and Chrome holds page commands after a crash until the next navigation.
// tabguard gives every call a deadline, refuses tabs that cannot answer
// before sending anything, and fails calls in flight the moment the
// renderer dies, a dialog opens or the debugger pauses.
//
// The pieces:
//
//   - [Watch] follows one [rod.Page] through its CDP events and evaluates on
//     it ([Watcher.Eval], [Watcher.DOM], [Watcher.Do]); [WatchBrowser]
//     follows every tab of a browser through one subscription.
//   - [Watcher.Navigate], [Watcher.Reload] and [Watcher.HandleDialog] change
//     the tab under the same deadline and reasons, and return once the change
//     has happened; [Watcher.Wait] waits for a state without polling.
//   - [EvalWithTimeout] bounds any function by a deadline; it knows nothing of rod.
//   - [EvalBlockedReason] turns a [TabState] into a refusal such as
//     "tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)".
//     The state machine behind it is package [tabstate], which imports no
//     browser driver.
//   - [TruncateDOM] and [Watcher.DOM] cap a page's HTML at a byte budget,
//     cut on a UTF-8 boundary, with a notice naming the real size and the cap.
//
// Typical use:
//
//	w, err := tabguard.Watch(page, &tabguard.Options{Dialogs: tabguard.DialogDismiss})
//	if err != nil {
//		return err
//	}
//	defer w.Close()
//
//	res, err := w.Eval(ctx, `() => document.title`)
//	switch {
//	case errors.Is(err, tabguard.ErrTabCrashed):
//		err = w.Reload(ctx) // the next eval works as soon as it returns
//	case errors.Is(err, tabguard.ErrNoDocument):
//		err = w.Navigate(ctx, url)
//	case errors.Is(err, tabguard.ErrNavigated):
//		// the page moved on under the eval: retry it
//	case errors.Is(err, tabguard.ErrEvalTimeout):
//		// the page is slow, a script is stuck or the renderer hangs: the message says which
//	}
package tabguard
