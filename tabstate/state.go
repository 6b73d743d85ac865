package tabstate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDetailBytes caps the dialog text quoted in an error.
const maxDetailBytes = 200

// errorPagePrefix starts the URL of Chrome's error page, which stands in for
// a page that failed to load.
const errorPagePrefix = "chrome-error://"

// State is what is known of a tab's health. The zero value is a tab in its
// first load: nothing committed yet, nothing wrong, so it is not refused.
type State struct {
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
	// document, and URL already names the page being loaded. A navigation
	// that starts on a crashed tab or one with no document leaves it false
	// until the new document commits: the tab is loading, as on a first load.
	Committed bool
	// Loaded reports that the committed document fired its load event: its
	// HTML, images and scripts are in. It is false from the commit until then.
	Loaded bool
	// Milestones are the lifecycle milestones (DOMContentLoaded, paints,
	// network idle) the main frame's committed document has reached, as
	// Chrome reported them; [State.Reached] tests them. A new document
	// starts with none, as does a crashed tab. Like Loaded, they are the
	// committed document's: while a later navigation is under way, the
	// previous page's, until the new document commits. Iframes' milestones
	// do not count.
	Milestones Milestone
	// LoadError is the network error of the last main-frame load, such as
	// "net::ERR_CONNECTION_REFUSED"; empty when the load did not fail.
	LoadError string
	// ErrorPage reports that Chrome's error page (chrome-error://chromewebdata/)
	// stands in for URL.
	ErrorPage bool
	// Closed reports that the tab was closed or detached.
	Closed bool
	// Discarded reports that the browser discarded the tab: its target is
	// gone, and the target ReplacedBy stands in for it, with the same URL
	// and history and no renderer until Target.activateTarget (or a reload)
	// revives it. Until then the replacement holds every renderer call, rod's
	// Browser.PageFromTarget among them (it enables the Page domain).
	Discarded bool
	// ReplacedBy is the target ID of a discarded tab's replacement.
	ReplacedBy string
	// BrowserGone reports that the browser connection is lost.
	BrowserGone bool
	// GoneReason says why the connection was lost when that is known, such
	// as `close frame 1008 "session timed out"`, "connection reset" or "no
	// answer from the browser for 1s".
	GoneReason string
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

// Blocked returns nil when an eval on a tab in state s may proceed, and
// otherwise a [*BlockedError] that says why not and what to do.
//
// The checks run in this order, so the most useful advice wins: a lost
// browser, then a discarded or closed tab (neither can be fixed by
// reloading the tab itself), then a
// crashed renderer (a crash often surfaces as a late net::ERR_FAILED, so it
// wins over a load error), then a main frame with no document of the page:
// a recorded load error, an error page, or a URL that is Chrome's error page
// itself (as a State filled from another backend's events may have), then
// an open JavaScript dialog, then a debugger pause (both only hold a live
// page). A tab that is loading, with nothing committed and no error, is not
// refused: an eval then waits for the load, within its deadline.
func Blocked(s State) error {
	switch {
	case s.BrowserGone:
		return &BlockedError{Reason: ErrBrowserGone, URL: s.URL, Detail: s.GoneReason}
	case s.Discarded:
		return &BlockedError{Reason: ErrTabDiscarded, URL: s.URL, Detail: "replaced by target " + s.ReplacedBy}
	case s.Closed:
		return &BlockedError{Reason: ErrTabClosed, URL: s.URL}
	case s.Crashed:
		return &BlockedError{Reason: ErrTabCrashed, URL: s.URL, Detail: s.CrashReason}
	case s.LoadError != "":
		return LoadFailure(s.URL, s.LoadError)
	case s.ErrorPage, strings.HasPrefix(s.URL, errorPagePrefix):
		return &BlockedError{Reason: ErrNoDocument, URL: s.URL, Detail: "error page"}
	case s.DialogOpen:
		return &BlockedError{Reason: ErrDialogOpen, URL: s.URL, Detail: DialogDetail(s.DialogType, s.DialogMessage)}
	case s.Paused:
		return &BlockedError{Reason: ErrPaused, URL: s.URL, Detail: s.PauseReason}
	}
	return nil
}

// DialogDetail names a dialog by type and quoted text, such as
// alert "Session expired", the text cut at 200 bytes.
func DialogDetail(typ, msg string) string {
	if typ == "" {
		typ = "dialog"
	}
	if len(msg) > maxDetailBytes {
		n := maxDetailBytes
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n] + "..."
	}
	return typ + " " + strconv.Quote(msg)
}
