package tabstate

import "fmt"

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
)

// String names the policy, as in "DialogAccept".
func (p DialogPolicy) String() string {
	switch p {
	case DialogRefuse:
		return "DialogRefuse"
	case DialogAccept:
		return "DialogAccept"
	case DialogDismiss:
		return "DialogDismiss"
	}
	return fmt.Sprintf("DialogPolicy(%d)", int(p))
}
