package tabstate

import (
	"fmt"
	"time"
)

// DialogPolicy says what a watcher does with a JavaScript dialog.
type DialogPolicy int

const (
	// DialogRefuse leaves a dialog open: calls are refused with
	// ErrDialogOpen until someone handles it.
	DialogRefuse DialogPolicy = iota
	// DialogAccept accepts each dialog as it opens, as a user pressing OK
	// would: confirm returns true, prompt its default text, and
	// beforeunload lets the page go. An eval that opens a dialog goes on.
	DialogAccept
	// DialogDismiss dismisses each dialog as it opens, as a user pressing
	// Cancel would: confirm returns false, prompt null, and beforeunload
	// keeps the page. An eval that opens a dialog goes on.
	DialogDismiss
	// DialogWait is for a program that handles dialogs itself, in an event
	// handler of its own: a call in flight, and one made while a dialog is
	// open, waits within its deadline for the dialog to close. A dialog
	// still open after a grace (DialogGrace) is refused as under
	// DialogRefuse.
	DialogWait
)

// DialogGrace is how long a dialog may stay open under DialogWait before
// calls are refused: a program's own handler answers a dialog in
// milliseconds.
const DialogGrace = time.Second

// String names the policy, as in "DialogAccept".
func (p DialogPolicy) String() string {
	switch p {
	case DialogRefuse:
		return "DialogRefuse"
	case DialogAccept:
		return "DialogAccept"
	case DialogDismiss:
		return "DialogDismiss"
	case DialogWait:
		return "DialogWait"
	}
	return fmt.Sprintf("DialogPolicy(%d)", int(p))
}
