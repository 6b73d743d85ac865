package tabtrace

import (
	"net/url"
	"strconv"
)

// Outcome is how a guarded call ended.
type Outcome uint8

const (
	// OutcomeOK: the call answered.
	OutcomeOK Outcome = iota
	// OutcomeRefused: the tab could not answer (a crash, a dialog, a
	// closed tab, a lost browser, ...), up front or while the call ran;
	// Done.Refused says which, and Done.Reason why.
	OutcomeRefused
	// OutcomeTimedOut: the call ran out of time, its own or the caller's;
	// Done.Cause says what the tab was doing.
	OutcomeTimedOut
	// OutcomeCanceled: the caller's context was cancelled.
	OutcomeCanceled
	// OutcomeFailed: any other error: bad input, a JavaScript exception, a
	// URL the policy blocks, a protocol error.
	OutcomeFailed
)

// String names the outcome in snake case, as in "timed_out", the form of
// an OpenTelemetry attribute value.
func (o Outcome) String() string {
	switch o {
	case OutcomeOK:
		return "ok"
	case OutcomeRefused:
		return "refused"
	case OutcomeTimedOut:
		return "timed_out"
	case OutcomeCanceled:
		return "canceled"
	case OutcomeFailed:
		return "failed"
	}
	return "outcome_" + strconv.Itoa(int(o))
}

// Refused says how a refused call learned it was refused.
type Refused uint8

const (
	// NotRefused: the call was not refused.
	NotRefused Refused = iota
	// RefusedFromState: up front, from the events alone; nothing was sent.
	RefusedFromState
	// RefusedAfterBarrier: up front, once every event Chrome had sent was
	// applied, for a refusal a recovery may have ended (a crash, a failed
	// load, a dialog, a pause); nothing was sent to the tab.
	RefusedAfterBarrier
	// RefusedInFlight: the call was sent, and cut short or answered with
	// the tab's refusal.
	RefusedInFlight
)

// String names how the call was refused, as in "after_barrier"; "" for
// NotRefused.
func (r Refused) String() string {
	switch r {
	case NotRefused:
		return ""
	case RefusedFromState:
		return "state"
	case RefusedAfterBarrier:
		return "after_barrier"
	case RefusedInFlight:
		return "in_flight"
	}
	return "refused_" + strconv.Itoa(int(r))
}

// ChangeKind says what happened to a tab.
type ChangeKind uint8

const (
	// TabOpened: a page target appeared.
	TabOpened ChangeKind = iota + 1
	// TabCrashed: a tab's renderer died; Detail is Chrome's status.
	TabCrashed
	// TabDialogOpened: a JavaScript dialog opened on a watched tab; Detail
	// is its type.
	TabDialogOpened
	// TabClosed: a page target went away.
	TabClosed
	// TabDiscarded: the browser discarded a tab to save memory; Detail is
	// the target that stands in for it.
	TabDiscarded
	// TabWatched: a watcher started following a tab.
	TabWatched
	// TabUnwatched: a watcher stopped following a tab (Watcher.Close).
	TabUnwatched
	// BrowserGone: the connection to the browser is lost; Detail says why.
	BrowserGone
	// ConnectionDropped: the connection to the browser dropped, and is
	// being resumed; Detail says why it dropped.
	ConnectionDropped
	// ConnectionResumed: a dropped connection is resumed; Detail says
	// after how long.
	ConnectionResumed
)

// String names the kind in snake case, as in "dialog_opened".
func (k ChangeKind) String() string {
	switch k {
	case TabOpened:
		return "opened"
	case TabCrashed:
		return "crashed"
	case TabDialogOpened:
		return "dialog_opened"
	case TabClosed:
		return "closed"
	case TabDiscarded:
		return "discarded"
	case TabWatched:
		return "watched"
	case TabUnwatched:
		return "unwatched"
	case BrowserGone:
		return "browser_gone"
	case ConnectionDropped:
		return "connection_dropped"
	case ConnectionResumed:
		return "connection_resumed"
	}
	return "change_" + strconv.Itoa(int(k))
}

// Origin is the origin of rawURL, scheme://host[:port], with no user,
// path, query or fragment, which can carry secrets: the form of a URL fit
// to leave the program. A URL with no host (about:blank, data:) gives its
// scheme alone; one that does not parse gives "".
func Origin(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}
