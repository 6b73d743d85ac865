package tabstate

// Transition is one way an event moves a tab from one phase to another.
type Transition struct {
	From  Phase
	Event Kind
	To    Phase
	// Label says when the move happens, in a few words.
	Label string
}

// Transitions returns the state machine's transition table: every move
// between phases that applying an event to a [Tab] (or [Tab.DialogHandled],
// a [KindDialogClosed]) makes, in a new slice the caller may keep. That is
// for events in an order Chrome can send them: a crashed tab has no
// renderer to open a dialog, pause, fire a load event or navigate within
// its document; fed one anyway, the Tab records it under the crash, and the
// next event can then move the tab along an edge not listed here. An event
// not listed for a phase leaves a tab in that phase, though it may change
// the State within it (a crash's status, the URL of a same-document
// navigation). Which row an event takes, when a phase lists several for it,
// depends on what a phase does not show: the navigation under way, what it
// replaced, a dialog or pause under a higher phase.
//
// The owner's Learn calls, which fill in what the owner's own probes found,
// are not events and are not in the table. The rows are grouped by From,
// in the order of a tab's life: its first load first, the ends last.
//
// The tests of the package hold the machine to the table both ways: every
// move it makes on generated and recorded event sequences is a row, and
// every row is a move it makes.
func Transitions() []Transition {
	const (
		gone, discarded, closed, crashed, noDoc = PhaseBrowserGone, PhaseDiscarded, PhaseClosed, PhaseCrashed, PhaseNoDocument
		dialog, paused, loaded, committed, load = PhaseDialogOpen, PhasePaused, PhaseLoaded, PhaseCommitted, PhaseLoading
	)
	return []Transition{
		{load, KindFrameNavigated, committed, "the page commits"},
		{load, KindLoadingFailed, noDoc, "the load fails"},
		{load, KindLoadingFailed, loaded, "the load is cancelled: the loaded page is back"},
		{load, KindLoadingFailed, committed, "the load is cancelled: the page is back"},
		{load, KindErrorPageNavigated, noDoc, "the error page commits"},
		{load, KindStoppedLoading, noDoc, "the load is abandoned: the failed page is back"},
		{load, KindStoppedLoading, loaded, "the load is abandoned: the loaded page is back"},
		{load, KindStoppedLoading, committed, "the load is abandoned: the page is back"},
		{load, KindDialogOpening, dialog, "a dialog opens"},
		{load, KindPaused, paused, "the debugger pauses"},
		{load, KindTargetCrashed, crashed, "the renderer dies"},
		{load, KindDetached, closed, "the tab closes"},
		{load, KindDiscarded, discarded, "the browser discards the tab"},
		{load, KindDisconnected, gone, "the connection is lost"},

		{committed, KindLoadFired, loaded, "the load event fires"},
		{committed, KindNavigationStarted, load, "a blank tab navigates"},
		{committed, KindReloadedAfterCrash, load, "a new renderer loads the page"},
		{committed, KindLoadingFailed, noDoc, "the load fails"},
		{committed, KindErrorPageNavigated, noDoc, "the error page commits"},
		{committed, KindErrorPageNavigated, load, "an older load's error page commits during a newer load"},
		{committed, KindDialogOpening, dialog, "a dialog opens"},
		{committed, KindPaused, paused, "the debugger pauses"},
		{committed, KindTargetCrashed, crashed, "the renderer dies"},
		{committed, KindDetached, closed, "the tab closes"},
		{committed, KindDiscarded, discarded, "the browser discards the tab"},
		{committed, KindDisconnected, gone, "the connection is lost"},

		{loaded, KindFrameNavigated, committed, "a new page commits"},
		{loaded, KindNavigationStarted, load, "a blank tab navigates"},
		{loaded, KindReloadedAfterCrash, load, "a new renderer loads the page"},
		{loaded, KindLoadingFailed, noDoc, "the load fails"},
		{loaded, KindLoadingFailed, committed, "the load is cancelled: the page is back, as it was when the load began"},
		{loaded, KindErrorPageNavigated, noDoc, "the error page commits"},
		{loaded, KindErrorPageNavigated, load, "an older load's error page commits during a newer load"},
		{loaded, KindStoppedLoading, committed, "the load is abandoned: the page is back, as it was when the load began"},
		{loaded, KindDialogOpening, dialog, "a dialog opens"},
		{loaded, KindPaused, paused, "the debugger pauses"},
		{loaded, KindTargetCrashed, crashed, "the renderer dies"},
		{loaded, KindDetached, closed, "the tab closes"},
		{loaded, KindDiscarded, discarded, "the browser discards the tab"},
		{loaded, KindDisconnected, gone, "the connection is lost"},

		{noDoc, KindNavigationStarted, load, "a navigation starts"},
		{noDoc, KindNavigationStarted, dialog, "a navigation starts: a dialog is still open"},
		{noDoc, KindNavigationStarted, paused, "a navigation starts: the page is still paused"},
		{noDoc, KindFrameNavigated, committed, "a page commits"},
		{noDoc, KindLoadingFailed, load, "the load is cancelled: the tab is loading as before"},
		{noDoc, KindLoadingFailed, loaded, "the load is cancelled: the loaded page is back"},
		{noDoc, KindLoadingFailed, committed, "the load is cancelled: the page is back"},
		{noDoc, KindLoadingFailed, dialog, "the load is cancelled: a dialog is still open"},
		{noDoc, KindLoadingFailed, paused, "the load is cancelled: the page is still paused"},
		{noDoc, KindStoppedLoading, load, "the load is abandoned: the tab is loading as before"},
		{noDoc, KindStoppedLoading, loaded, "the load is abandoned: the loaded page is back"},
		{noDoc, KindStoppedLoading, committed, "the load is abandoned: the page is back"},
		{noDoc, KindStoppedLoading, dialog, "the load is abandoned: a dialog is still open"},
		{noDoc, KindStoppedLoading, paused, "the load is abandoned: the page is still paused"},
		{noDoc, KindTargetCrashed, crashed, "the renderer dies"},
		{noDoc, KindDetached, closed, "the tab closes"},
		{noDoc, KindDiscarded, discarded, "the browser discards the tab"},
		{noDoc, KindDisconnected, gone, "the connection is lost"},

		{dialog, KindDialogClosed, load, "the dialog closes"},
		{dialog, KindDialogClosed, loaded, "the dialog closes"},
		{dialog, KindDialogClosed, committed, "the dialog closes"},
		{dialog, KindDialogClosed, paused, "the dialog closes: the page is still paused"},
		{dialog, KindFrameNavigated, committed, "a new page has no dialog"},
		{dialog, KindLoadingFailed, noDoc, "the load fails"},
		{dialog, KindErrorPageNavigated, noDoc, "the error page commits"},
		{dialog, KindErrorPageNavigated, load, "an older load's error page commits during a newer load"},
		{dialog, KindStoppedLoading, noDoc, "the load is abandoned: the failed page is back"},
		{dialog, KindTargetCrashed, crashed, "the renderer dies"},
		{dialog, KindDetached, closed, "the tab closes"},
		{dialog, KindDiscarded, discarded, "the browser discards the tab"},
		{dialog, KindDisconnected, gone, "the connection is lost"},

		{paused, KindResumed, load, "the debugger resumes"},
		{paused, KindResumed, loaded, "the debugger resumes"},
		{paused, KindResumed, committed, "the debugger resumes"},
		{paused, KindFrameNavigated, committed, "a new page is not paused"},
		{paused, KindLoadingFailed, noDoc, "the load fails"},
		{paused, KindErrorPageNavigated, noDoc, "the error page commits"},
		{paused, KindErrorPageNavigated, load, "an older load's error page commits during a newer load"},
		{paused, KindStoppedLoading, noDoc, "the load is abandoned: the failed page is back"},
		{paused, KindDialogOpening, dialog, "a dialog opens"},
		{paused, KindTargetCrashed, crashed, "the renderer dies"},
		{paused, KindDetached, closed, "the tab closes"},
		{paused, KindDiscarded, discarded, "the browser discards the tab"},
		{paused, KindDisconnected, gone, "the connection is lost"},

		{crashed, KindReloadedAfterCrash, load, "a new renderer loads the page"},
		{crashed, KindReloadedAfterCrash, noDoc, "a new renderer: the crashed load's error stays until a navigation starts"},
		{crashed, KindNavigationStarted, load, "a navigation loads the page in a new renderer"},
		{crashed, KindFrameNavigated, committed, "a page commits in a new renderer"},
		{crashed, KindFrameNavigated, noDoc, "an older load's page commits: the newer load's error stays"},
		{crashed, KindErrorPageNavigated, noDoc, "the error page commits in a new renderer"},
		{crashed, KindErrorPageNavigated, load, "an older load's error page commits during a newer load"},
		{crashed, KindDetached, closed, "the tab closes"},
		{crashed, KindDiscarded, discarded, "the browser discards the tab"},
		{crashed, KindDisconnected, gone, "the connection is lost"},

		{closed, KindDisconnected, gone, "the connection is lost"},
		{discarded, KindDisconnected, gone, "the connection is lost"},
	}
}
