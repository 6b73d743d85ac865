// Package tabguard makes page evaluation through [github.com/go-rod/rod]
// deadline-safe: an eval on a browser tab always answers, in time, with its
// real reason.
//
// A tab whose renderer crashed, whose main frame never committed a document,
// that shows a JavaScript dialog or is paused in the debugger answers
// nothing: rod retries a missing execution context until its context ends,
// and Chrome holds page commands after a crash until the next navigation.
// tabguard gives every eval a deadline, refuses tabs that cannot answer
// before sending anything, and fails in-flight evals the moment the
// renderer dies, a dialog opens or the debugger pauses.
//
// The pieces stand alone:
//
//   - [EvalWithTimeout] bounds any function by a deadline; it knows nothing of rod.
//   - [EvalBlockedReason] turns a [TabState] into a refusal such as
//     "tab renderer crashed (reason: oom): reload the tab".
//   - [Watch] follows one [rod.Page] through its CDP target and load events
//     and evaluates on it with both of the above.
//   - [TruncateDOM] and [Watcher.DOM] cap a page's HTML at a byte budget,
//     cut on a UTF-8 boundary, with a notice naming the real size.
//
// Typical use:
//
//	w, err := tabguard.Watch(page, nil)
//	if err != nil {
//		return err
//	}
//	defer w.Close()
//
//	res, err := w.Eval(ctx, `() => document.title`)
//	switch {
//	case errors.Is(err, tabguard.ErrTabCrashed):
//		// reload the tab, e.g. proto.PageReload{}.Call(page)
//	case errors.Is(err, tabguard.ErrDialogOpen):
//		// proto.PageHandleJavaScriptDialog{Accept: true}.Call(page)
//	case errors.Is(err, tabguard.ErrNavigated):
//		// the page moved on under the eval: retry it
//	case errors.Is(err, tabguard.ErrEvalTimeout):
//		// the page is slow or a script is stuck; the message says which
//	}
package tabguard
