package tabguard

import "github.com/tabguard/tabguard/tabstate"

// Reasons an eval is refused or cut short. Each is the Reason of a
// [*BlockedError]; test for them with [errors.Is]. They are the values of
// package [tabstate], so an error from any backend matches them.
var (
	// ErrTabCrashed reports that the tab's renderer process is gone.
	ErrTabCrashed = tabstate.ErrTabCrashed
	// ErrNoDocument reports that the tab's main frame holds no document of
	// the page it was sent to: the load failed or an error page stands in.
	ErrNoDocument = tabstate.ErrNoDocument
	// ErrTabClosed reports that the tab was closed or detached.
	ErrTabClosed = tabstate.ErrTabClosed
	// ErrTabDiscarded reports that the browser discarded the tab to save
	// memory; TabState.ReplacedBy names the target that stands in for it.
	ErrTabDiscarded = tabstate.ErrTabDiscarded
	// ErrBrowserGone reports that the connection to the browser is lost:
	// the browser process died or its DevTools socket closed.
	ErrBrowserGone = tabstate.ErrBrowserGone
	// ErrDialogOpen reports that an alert, confirm, prompt or beforeunload
	// dialog is open: the page runs no script until it is closed.
	ErrDialogOpen = tabstate.ErrDialogOpen
	// ErrPaused reports that the page's JavaScript is paused in the
	// debugger, by a breakpoint or a debugger statement.
	ErrPaused = tabstate.ErrPaused
	// ErrNavigated reports that the page navigated away, or reloaded,
	// while an eval ran: the document it ran in is gone.
	ErrNavigated = tabstate.ErrNavigated
	// ErrTerminated reports that Runtime.terminateExecution stopped the
	// eval's script: another eval on the tab timed out with
	// Options.TerminateOnTimeout, or another client terminated it.
	ErrTerminated = tabstate.ErrTerminated
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

// TabState is what is known of a tab's health; see [tabstate.State]. The
// zero value is a tab in its first load: nothing committed yet, nothing
// wrong, so it is not refused.
type TabState = tabstate.State

// BlockedError explains why an eval was refused or cut short; see
// [tabstate.BlockedError]. Its Error reads like "tab renderer crashed
// (reason: oom): reload the tab (Watcher.Reload)".
type BlockedError = tabstate.BlockedError

// EvalBlockedReason returns nil when an eval on a tab in state s may
// proceed, and otherwise a [*BlockedError] that says why not and what to do.
//
// The checks run in this order, so the most useful advice wins: a lost
// browser, then a closed tab (neither can be fixed by reloading), then a
// crashed renderer (a crash often surfaces as a late net::ERR_FAILED, so it
// wins over a load error), then a main frame with no document of the page:
// a recorded load error, an error page, or a URL that is Chrome's error
// page itself (chrome-error://), then an open JavaScript dialog, then a
// debugger pause (both only hold a live page). A tab that is loading, with
// nothing committed and no error, is not refused: an eval then waits for
// the load as callers expect, within its deadline.
func EvalBlockedReason(s TabState) error { return tabstate.Blocked(s) }
