package tabguard

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// ErrNoDialog reports a call to [Watcher.HandleDialog] on a tab that shows
// no JavaScript dialog.
var ErrNoDialog = tabstate.ErrNoDialog

// DialogPolicy says what a [Watcher] does with a JavaScript dialog; see
// [tabstate.DialogPolicy].
type DialogPolicy = tabstate.DialogPolicy

// The dialog policies.
const (
	// DialogRefuse leaves a dialog open: calls are refused with
	// ErrDialogOpen until someone handles it (Watcher.HandleDialog).
	DialogRefuse = tabstate.DialogRefuse
	// DialogAccept accepts each dialog as it opens, as a user pressing OK
	// would: confirm returns true, prompt its default text, and
	// beforeunload lets the page go. An eval that opens a dialog goes on.
	DialogAccept = tabstate.DialogAccept
	// DialogDismiss dismisses each dialog as it opens, as a user pressing
	// Cancel would: confirm returns false, prompt null, and beforeunload
	// keeps the page. An eval that opens a dialog goes on.
	DialogDismiss = tabstate.DialogDismiss
	// DialogWait is for a program that handles dialogs itself, in an
	// event handler of its own (rod's EachEvent on
	// proto.PageJavascriptDialogOpening, say): a call in flight, and one
	// made while a dialog is open, waits within its deadline for the
	// dialog to close. A dialog still open after a second
	// (tabstate.DialogGrace) is refused as under DialogRefuse.
	DialogWait = tabstate.DialogWait
)

// HandleDialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted, within ctx's deadline, or Options.EvalTimeout. It
// handles a dialog that opened before Watch too. Once it returns, the
// dialog no longer refuses calls. With no dialog open it returns
// [ErrNoDialog] at once; a closed tab or a lost browser gives their
// [*BlockedError].
func (w *Watcher) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	return w.t.HandleDialog(ctx, accept, promptText)
}
