package chromedpguard

import "context"

// HandleDialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted, within ctx's deadline, or Options.EvalTimeout.
// Once it returns, the dialog no longer refuses calls. With no dialog open
// it returns [ErrNoDialog] at once; a closed tab or a lost browser gives
// their [*BlockedError].
//
// chromedp's own listeners must not send this command (chromedp's #984);
// HandleDialog may be called from any goroutine but a Listen func.
func (w *Watcher) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	return w.t.HandleDialog(ctx, accept, promptText)
}
