package tabguard

import (
	"errors"
	"strconv"
	"strings"
)

// Reasons an eval is refused or cut short. Each is the Reason of a
// [*BlockedError]; test for them with [errors.Is].
var (
	// ErrTabCrashed reports that the tab's renderer process is gone.
	ErrTabCrashed = errors.New("tab renderer crashed")
	// ErrNoDocument reports that the tab's main frame holds no document of
	// the page it was sent to: the load failed or an error page stands in.
	ErrNoDocument = errors.New("tab has no document")
	// ErrTabClosed reports that the tab was closed or detached.
	ErrTabClosed = errors.New("tab is closed")
	// ErrBrowserGone reports that the connection to the browser is lost:
	// the browser process died or its DevTools socket closed.
	ErrBrowserGone = errors.New("browser is gone")
	// ErrDialogOpen reports that an alert, confirm, prompt or beforeunload
	// dialog is open: the page runs no script until it is closed.
	ErrDialogOpen = errors.New("tab has a JavaScript dialog open")
	// ErrPaused reports that the page's JavaScript is paused in the
	// debugger, by a breakpoint or a debugger statement.
	ErrPaused = errors.New("tab is paused in the debugger")
	// ErrNavigated reports that the page navigated away, or reloaded,
	// while an eval ran: the document it ran in is gone.
	ErrNavigated = errors.New("page navigated away during the eval")
	// ErrTerminated reports that Runtime.terminateExecution stopped the
	// eval's script: another eval on the tab timed out with
	// Options.TerminateOnTimeout, or another client terminated it.
	ErrTerminated = errors.New("eval's script was terminated")
)

// maxDetailBytes caps the dialog text quoted in an error.
const maxDetailBytes = 200

// TabState is what is known of a tab's health. The zero value is a tab in
// its first load: nothing committed yet, nothing wrong, so it is not refused.
type TabState struct {
	// URL is the last known URL of the tab: the committed page, or the one
	// being loaded or that failed to load.
	URL string
	// Crashed reports that the renderer died and the tab was not navigated since.
	Crashed bool
	// CrashReason is Chrome's termination status ("crashed", "killed",
	// "oom", "abnormal"), or empty when only the fact of the crash is known.
	CrashReason string
	// Committed reports that the main frame holds a committed document. While
	// a later navigation is under way, that is still the previous page's
	// document, and URL already names the page being loaded.
	Committed bool
	// LoadError is the network error of the last main-frame load, such as
	// "net::ERR_CONNECTION_REFUSED"; empty when the load did not fail.
	LoadError string
	// ErrorPage reports that Chrome's error page (chrome-error://chromewebdata/)
	// stands in for URL.
	ErrorPage bool
	// Closed reports that the tab was closed or detached.
	Closed bool
	// BrowserGone reports that the browser connection is lost.
	BrowserGone bool
	// DialogOpen reports that a JavaScript dialog is open on the tab.
	DialogOpen bool
	// DialogType is the open dialog's type: "alert", "confirm", "prompt"
	// or "beforeunload"; it may be empty.
	DialogType string
	// DialogMessage is the open dialog's text.
	DialogMessage string
	// Paused reports that the page is paused in the debugger. It is only
	// known when Debugger was enabled on the page's session: the watcher
	// does not enable it, since that would make every debugger statement
	// and breakpoint stop the page.
	Paused bool
	// PauseReason is Chrome's reason for the pause, such as "other" (a
	// debugger statement or breakpoint) or "exception".
	PauseReason string
}

// EvalBlockedReason returns nil when an eval on a tab in state s may
// proceed, and otherwise a [*BlockedError] that says why not and what to do.
//
// The checks run in this order, so the most useful advice wins: a lost
// browser, then a closed tab (neither can be fixed by reloading), then a
// crashed renderer (a crash often surfaces as a late net::ERR_FAILED, so it
// wins over a load error), then a main frame with no document of the page:
// a recorded load error or an error page, then an open JavaScript dialog,
// then a debugger pause (both only hold a live page). A tab in its first load, with
// nothing committed and no error, is not refused: an eval then waits for the
// load as callers expect, within its deadline.
func EvalBlockedReason(s TabState) error {
	switch {
	case s.BrowserGone:
		return &BlockedError{Reason: ErrBrowserGone, URL: s.URL}
	case s.Closed:
		return &BlockedError{Reason: ErrTabClosed, URL: s.URL}
	case s.Crashed:
		return &BlockedError{Reason: ErrTabCrashed, URL: s.URL, Detail: s.CrashReason}
	case s.LoadError != "":
		return &BlockedError{Reason: ErrNoDocument, URL: s.URL, Detail: s.LoadError}
	case s.ErrorPage:
		return &BlockedError{Reason: ErrNoDocument, URL: s.URL, Detail: "error page"}
	case s.DialogOpen:
		return &BlockedError{Reason: ErrDialogOpen, URL: s.URL, Detail: dialogDetail(s.DialogType, s.DialogMessage)}
	case s.Paused:
		return &BlockedError{Reason: ErrPaused, URL: s.URL, Detail: s.PauseReason}
	}
	return nil
}

// dialogDetail names a dialog by type and quoted text, such as
// alert "Session expired", the text cut at maxDetailBytes.
func dialogDetail(typ, msg string) string {
	if typ == "" {
		typ = "dialog"
	}
	if len(msg) > maxDetailBytes {
		msg = msg[:runeCut(msg, maxDetailBytes)] + "..."
	}
	return typ + " " + strconv.Quote(msg)
}

// BlockedError explains why an eval was refused or cut short.
type BlockedError struct {
	// Reason is one of ErrTabCrashed, ErrNoDocument, ErrTabClosed,
	// ErrBrowserGone, ErrDialogOpen, ErrPaused, ErrNavigated, ErrTerminated.
	Reason error
	// URL is the last known URL of the tab; it may be empty.
	URL string
	// Detail is the crash status ("oom"), the load error
	// ("net::ERR_CONNECTION_REFUSED"), the dialog (alert "hello") or the
	// pause reason ("other"); it may be empty.
	Detail string
}

// Error reads like "tab renderer crashed (reason: oom): reload the tab" or
// "tab has no document: net::ERR_CONNECTION_REFUSED loading
// http://127.0.0.1:40123/: navigate the tab again".
func (e *BlockedError) Error() string {
	var b strings.Builder
	if e.Reason == nil {
		b.WriteString("eval blocked")
	} else {
		b.WriteString(e.Reason.Error())
	}
	switch e.Reason {
	case ErrTabCrashed:
		if e.Detail != "" {
			b.WriteString(" (reason: " + e.Detail + ")")
		}
		b.WriteString(": reload the tab")
	case ErrNoDocument:
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		if e.URL != "" {
			b.WriteString(" loading " + e.URL)
		}
		b.WriteString(": navigate the tab again")
	case ErrTabClosed:
		b.WriteString(": open a new tab")
	case ErrBrowserGone:
		b.WriteString(": reconnect to or relaunch the browser")
	case ErrDialogOpen:
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		b.WriteString(": accept or dismiss it with Page.handleJavaScriptDialog (proto.PageHandleJavaScriptDialog)")
	case ErrPaused:
		if e.Detail != "" {
			b.WriteString(" (reason: " + e.Detail + ")")
		}
		b.WriteString(": resume it with Debugger.resume (proto.DebuggerResume)")
	case ErrTerminated:
		b.WriteString(" by Runtime.terminateExecution: retry the eval")
	case ErrNavigated:
		if e.URL != "" {
			b.WriteString(" (now at " + e.URL + ")")
		}
		b.WriteString(": retry the eval")
	default:
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
	}
	return b.String()
}

// Unwrap returns the Reason, so errors.Is(err, ErrTabCrashed) works.
func (e *BlockedError) Unwrap() error { return e.Reason }
