package tabstate

import "strconv"

// FramePhase is where an iframe is in its life, as one word: its [Frame]
// folded into the one fact that decides what an eval in it meets.
// [FramePhaseOf] derives it; [FrameTransitions] lists how events move an
// iframe between phases.
type FramePhase uint8

// The phases of an iframe, in the order [FrameGone] and [FrameBlocked]
// check them: a frame in two at once (a crashed frame in a process of its
// own) is in the first one listed.
const (
	// FramePhaseDetached: the tab has no such frame. It was removed, went
	// with its parent or its page's document, or was never attached.
	FramePhaseDetached FramePhase = iota + 1
	// FramePhaseCrashed: the frame's own renderer died; the tab lives on.
	FramePhaseCrashed
	// FramePhaseNoDocument: the frame's last load failed, or Chrome's
	// error page stands in for it.
	FramePhaseNoDocument
	// FramePhaseOutOfProcess: the frame runs in a renderer process of its
	// own, reached through its own target.
	FramePhaseOutOfProcess
	// FramePhaseCommitted: a document of the frame's own is committed in
	// the page's process. Evals run in it.
	FramePhaseCommitted
	// FramePhaseLoading: the frame holds Chrome's initial empty document:
	// its first load is under way, or it is a lazy iframe never loaded. An
	// eval waits for its document, within the deadline.
	FramePhaseLoading
)

// FramePhases lists every phase of an iframe in the order they are checked.
func FramePhases() []FramePhase {
	return []FramePhase{
		FramePhaseDetached, FramePhaseCrashed, FramePhaseNoDocument,
		FramePhaseOutOfProcess, FramePhaseCommitted, FramePhaseLoading,
	}
}

// FramePhaseOf returns the phase of frame f, where ok reports that the tab
// has it, as [Tab.Frame] returns them: FramePhaseOf(tab.Frame(id)). It
// checks the facts in the order [FrameBlocked] does, so FramePhaseCrashed
// and FramePhaseNoDocument name its refusal, and a phase after them is
// one it lets an eval through.
func FramePhaseOf(f Frame, ok bool) FramePhase {
	switch {
	case !ok:
		return FramePhaseDetached
	case f.Crashed:
		return FramePhaseCrashed
	case f.LoadError != "", f.ErrorPage:
		return FramePhaseNoDocument
	case f.OutOfProcess:
		return FramePhaseOutOfProcess
	case f.Committed:
		return FramePhaseCommitted
	}
	return FramePhaseLoading
}

// String returns the phase's name without its prefix, such as "Committed".
func (p FramePhase) String() string {
	switch p {
	case FramePhaseDetached:
		return "Detached"
	case FramePhaseCrashed:
		return "Crashed"
	case FramePhaseNoDocument:
		return "NoDocument"
	case FramePhaseOutOfProcess:
		return "OutOfProcess"
	case FramePhaseCommitted:
		return "Committed"
	case FramePhaseLoading:
		return "Loading"
	}
	return "FramePhase(" + strconv.Itoa(int(p)) + ")"
}

// FrameTransition is one way an event moves an iframe from one phase to
// another.
type FrameTransition struct {
	From FramePhase
	// Event names what moves the frame: an [Event]'s [Kind], as
	// Kind.String spells it (a FrameNavigated of Chrome's error page is
	// an ErrorPageNavigated), "FrameAttached" or "FrameDetached", or
	// "FrameMoved" for a call of [Tab.FrameMoved].
	Event string
	To    FramePhase
	// Label says when the move happens, in a few words.
	Label string
}

// FrameTransitions returns the transition table of a tab's iframes: every
// move between frame phases that applying an event to a [Tab], or calling
// [Tab.FrameMoved], makes, in a new slice the caller may keep. An event of
// one frame can move others: the frames below a frame that goes, moves
// out of process or commits a new document go with that document, and a
// commit of the main frame takes every iframe with it.
//
// That is for events in an order Chrome can send them: only a frame in a
// process of its own crashes apart from its page, and the page's session
// tells nothing of the loads of such a frame, or of the frames below it,
// until it comes back to the page's process. An event not listed for a
// phase leaves a frame in it, though it may change the Frame (its URL).
// [Tab.LearnFrames], which fills in what the owner found by asking, is not
// an event and is not in the table.
//
// The tests of the package hold the machine to the table both ways, as
// they do for [Transitions].
func FrameTransitions() []FrameTransition {
	const (
		gone, crashed, noDoc = FramePhaseDetached, FramePhaseCrashed, FramePhaseNoDocument
		oop, committed, load = FramePhaseOutOfProcess, FramePhaseCommitted, FramePhaseLoading
	)
	const (
		attached, detached, moved   = "FrameAttached", "FrameDetached", "FrameMoved"
		started, navigated, errPage = "NavigationStarted", "FrameNavigated", "ErrorPageNavigated"
		failed, crash               = "LoadingFailed", "TargetCrashed"
	)
	const (
		removed         = "it is removed, with its parent, or its parent moves to another process"
		parentCommits   = "its parent or the page commits a new document"
		parentErrPage   = "Chrome's error page commits in its parent or the page"
		ownTarget       = "its own target tells of it: it moves to a process of its own"
		swapped         = "it moves to a process of its own"
		backInProcess   = "it comes back to the page's process, at a page"
		backAtErrorPage = "it comes back to the page's process, at Chrome's error page"
	)
	return []FrameTransition{
		{gone, attached, load, "an iframe joins the page"},
		{gone, navigated, committed, "an iframe the tab did not know of commits"},
		{gone, errPage, noDoc, "Chrome's error page commits in an iframe the tab did not know of"},

		{load, navigated, committed, "its document commits"},
		{load, errPage, noDoc, "Chrome's error page commits"},
		{load, failed, noDoc, "the load fails"},
		{load, detached, oop, swapped},
		{load, moved, oop, ownTarget},
		{load, detached, gone, removed},
		{load, navigated, gone, parentCommits},
		{load, errPage, gone, parentErrPage},

		{committed, errPage, noDoc, "Chrome's error page commits"},
		{committed, failed, noDoc, "a new load fails"},
		{committed, detached, oop, swapped},
		{committed, moved, oop, ownTarget},
		{committed, detached, gone, removed},
		{committed, navigated, gone, parentCommits},
		{committed, errPage, gone, parentErrPage},

		{noDoc, started, load, "a new load starts"},
		{noDoc, started, committed, "a new load starts: the document it had answers meanwhile"},
		{noDoc, navigated, committed, "a page commits"},
		{noDoc, moved, oop, "its own target has a page: a document in a process of its own"},
		{noDoc, crash, crashed, "its own renderer dies"},
		{noDoc, detached, gone, removed},
		{noDoc, navigated, gone, parentCommits},
		{noDoc, errPage, gone, parentErrPage},

		{oop, crash, crashed, "its own renderer dies"},
		{oop, navigated, committed, backInProcess},
		{oop, errPage, noDoc, backAtErrorPage},
		{oop, detached, gone, removed},
		{oop, navigated, gone, parentCommits},
		{oop, errPage, gone, parentErrPage},

		{crashed, moved, oop, "its own target has another page: a new renderer"},
		{crashed, navigated, committed, backInProcess},
		{crashed, errPage, noDoc, backAtErrorPage},
		{crashed, detached, gone, removed},
		{crashed, navigated, gone, parentCommits},
		{crashed, errPage, gone, parentErrPage},
	}
}
