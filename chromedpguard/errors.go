package chromedpguard

import (
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/tabstate"
)

// The errors are package tabstate's values, which the rod backend
// (package tabguard) re-exports too: errors.Is(err, tabguard.ErrTabCrashed)
// and errors.Is(err, chromedpguard.ErrTabCrashed) hold for an error from
// either backend.
var (
	// ErrTabCrashed reports that the tab's renderer process is gone.
	ErrTabCrashed = tabstate.ErrTabCrashed
	// ErrNoDocument reports that the tab's main frame holds no document of
	// the page it was sent to: the load failed or an error page stands in.
	ErrNoDocument = tabstate.ErrNoDocument
	// ErrTabClosed reports that the tab was closed or detached.
	ErrTabClosed = tabstate.ErrTabClosed
	// ErrTabDiscarded reports that the browser discarded the tab.
	ErrTabDiscarded = tabstate.ErrTabDiscarded
	// ErrBrowserGone reports that the connection to the browser is lost.
	ErrBrowserGone = tabstate.ErrBrowserGone
	// ErrDialogOpen reports that a JavaScript dialog is open on the tab.
	ErrDialogOpen = tabstate.ErrDialogOpen
	// ErrPaused reports that the page is paused in the debugger.
	ErrPaused = tabstate.ErrPaused
	// ErrNavigated reports that the page navigated away during an eval.
	ErrNavigated = tabstate.ErrNavigated
	// ErrTerminated reports that Runtime.terminateExecution stopped the
	// eval's script.
	ErrTerminated = tabstate.ErrTerminated
	// ErrEvalTimeout reports that a call did not answer within its timeout;
	// it also matches context.DeadlineExceeded.
	ErrEvalTimeout = tabstate.ErrEvalTimeout
	// ErrInvalidArgument reports bad input, such as a context that is not
	// a chromedp context.
	ErrInvalidArgument = tabstate.ErrInvalidArgument
	// ErrWatcherClosed reports a call on a Watcher after its Close.
	ErrWatcherClosed = tabstate.ErrWatcherClosed
	// ErrNoDialog reports HandleDialog on a tab that shows no dialog.
	ErrNoDialog = tabstate.ErrNoDialog
	// ErrSnapshotGone reports a ReadDOM of a snapshot the page no longer holds.
	ErrSnapshotGone = tabstate.ErrSnapshotGone
	// ErrNoMatch reports a ReadDOM whose CSS selector matches nothing.
	ErrNoMatch = tabstate.ErrNoMatch
	// ErrURLBlocked reports a navigation that Options.URLs does not allow.
	ErrURLBlocked = tabstate.ErrURLBlocked
	// ErrFrameCrashed reports that an iframe's own renderer process died
	// (an out-of-process iframe) while the tab lives on.
	ErrFrameCrashed = tabstate.ErrFrameCrashed
	// ErrFrameDetached reports that the frame is gone from the tab, or was
	// removed or moved to another process while the call ran.
	ErrFrameDetached = tabstate.ErrFrameDetached
	// ErrConnectionDropped reports that the connection to the browser
	// dropped during the call while the browser lives on: the call did
	// not answer. Detail says whether the connection was resumed, when
	// the call may be sent again.
	ErrConnectionDropped = tabstate.ErrConnectionDropped
	// ErrSignInRequired reports that the server asked for credentials (a
	// 401 challenge) and the browser gave none; it is an ErrNoDocument too.
	ErrSignInRequired = tabstate.ErrSignInRequired
	// ErrCredentialsRefused reports that the server refused the
	// credentials Options.Credentials gave (it asked again): the tab shows
	// the server's answer, usually its 401 page; it is an ErrNoDocument too.
	ErrCredentialsRefused = tabstate.ErrCredentialsRefused
	// ErrCertificate reports that the server's TLS certificate was refused;
	// it is an ErrNoDocument too.
	ErrCertificate = tabstate.ErrCertificate
	// ErrClientCertificate reports that the server asked for a client
	// certificate and the browser gave none; it is an ErrNoDocument too.
	ErrClientCertificate = tabstate.ErrClientCertificate
	// ErrDownload reports that a navigation became a download: the tab
	// kept its document, and Detail names the file and whether it was
	// denied or where it was saved (Options.DownloadDir).
	ErrDownload = tabstate.ErrDownload
	// ErrLocalNetworkDenied reports that a script's request to this
	// machine or the local network, from a page of a more public address
	// space, was denied: the call's script ended with an exception, and
	// Detail names the permission (loopback-network or local-network) and
	// the host; Options.Permissions grants it to the page's origin.
	ErrLocalNetworkDenied = tabstate.ErrLocalNetworkDenied
	// ErrFileChooser reports that a file chooser the page opened while a
	// call ran was cancelled (Options.FileChooser unset, or its answer not
	// usable): the call ran, and the page was told no file was chosen.
	// Detail names the input's mode, "selectSingle" or "selectMultiple".
	ErrFileChooser = tabstate.ErrFileChooser
)

// DefaultEvalTimeout bounds a call when Options.EvalTimeout is zero.
const DefaultEvalTimeout = tabstate.DefaultEvalTimeout

// DefaultPatience is the watcher's patience when Options.Patience is zero.
const DefaultPatience = tabstate.DefaultPatience

// TabState is what a [Watcher] knows of its tab; the zero value is a tab in
// its first load.
type TabState = tabstate.State

// BlockedError explains why a call was refused or cut short; its Reason is
// one of the sentinels above. It is the rod backend's type too.
type BlockedError = tabstate.BlockedError

// TimeoutError is the error of a call that ran out of time, saying what the
// tab was doing. It matches [ErrEvalTimeout] and context.DeadlineExceeded.
// Its Cause is what the watcher found, its Problem the error without the
// advice, for a program that names its own remedy.
type TimeoutError = tabstate.TimeoutError

// TimeoutCause is what a watcher found a tab doing when a call on it ran
// out of time; see [tabstate.TimeoutCause].
type TimeoutCause = tabstate.TimeoutCause

// The causes of a timeout; see [tabstate.TimeoutCause].
const (
	TimeoutUnknown    = tabstate.TimeoutUnknown
	TimeoutLoading    = tabstate.TimeoutLoading
	TimeoutUnsettled  = tabstate.TimeoutUnsettled
	TimeoutHidden     = tabstate.TimeoutHidden
	TimeoutFrozen     = tabstate.TimeoutFrozen
	TimeoutBusyScript = tabstate.TimeoutBusyScript
	TimeoutHung       = tabstate.TimeoutHung
	TimeoutSilent     = tabstate.TimeoutSilent
	TimeoutNavigating = tabstate.TimeoutNavigating
)

// ConnectionError reports that the connection a [NewRemoteAllocator]
// browser runs on ended, and why; it matches [ErrBrowserGone].
type ConnectionError = cdpws.ConnectionError

// URLPolicy says which URLs [Watcher.Navigate] may load; see
// [tabstate.URLPolicy].
type URLPolicy = tabstate.URLPolicy

// Advice words the remedies a watcher's errors name, in a program's own
// terms (Options.Advice); see [tabstate.Advice]. For an MCP server:
//
//	&chromedpguard.Advice{Refused: map[error]string{chromedpguard.ErrTabCrashed: "call reload_tab"}}
type Advice = tabstate.Advice

// FileChooser is a file chooser a page opened, as Options.FileChooser
// sees it; see [tabstate.FileChooser].
type FileChooser = tabstate.FileChooser

// DialogPolicy says what a [Watcher] does with a JavaScript dialog.
type DialogPolicy = tabstate.DialogPolicy

// The dialog policies.
const (
	// DialogRefuse leaves a dialog open: calls are refused with
	// ErrDialogOpen until someone handles it (Watcher.HandleDialog).
	DialogRefuse = tabstate.DialogRefuse
	// DialogAccept accepts each dialog as it opens; an eval that opened it
	// goes on.
	DialogAccept = tabstate.DialogAccept
	// DialogDismiss dismisses each dialog as it opens; an eval that opened
	// it goes on.
	DialogDismiss = tabstate.DialogDismiss
	// DialogWait is for a program that handles dialogs itself, in a
	// chromedp.ListenTarget or Listen func of its own: a call in flight,
	// and one made while a dialog is open, waits within its deadline for
	// the dialog to close. A dialog still open after a second
	// (tabstate.DialogGrace) is refused as under DialogRefuse.
	DialogWait = tabstate.DialogWait
)
