package tabstate

import (
	"strconv"
	"strings"
)

// Phase is where a tab is in its life, as one word: the State folded into
// the one fact that decides what an eval on the tab meets. [PhaseOf] derives
// it; [Transitions] lists how events move a tab between phases.
type Phase uint8

// The phases of a tab, in the order [Blocked] checks them: a tab in two at
// once (a crashed tab whose browser is gone) is in the first one listed.
const (
	// PhaseBrowserGone: the connection to the browser is lost. Nothing
	// leaves it.
	PhaseBrowserGone Phase = iota + 1
	// PhaseDiscarded: the browser discarded the tab; another target stands in.
	PhaseDiscarded
	// PhaseClosed: the tab was closed or its session detached.
	PhaseClosed
	// PhaseCrashed: the renderer died, and no navigation gave it a new one.
	PhaseCrashed
	// PhaseNoDocument: the last main-frame load failed, or Chrome's error
	// page stands in for it.
	PhaseNoDocument
	// PhaseDialogOpen: a JavaScript dialog holds the page.
	PhaseDialogOpen
	// PhasePaused: the page is paused in the debugger.
	PhasePaused
	// PhaseLoaded: a document is committed and fired its load event.
	PhaseLoaded
	// PhaseCommitted: a document is committed and its load event is still
	// to come. Evals run in it.
	PhaseCommitted
	// PhaseLoading: nothing is committed and nothing is wrong, as on a
	// first load or a load after a crash: an eval waits for the commit.
	PhaseLoading
)

// Phases lists every phase in the order [Blocked] checks them.
func Phases() []Phase {
	return []Phase{
		PhaseBrowserGone, PhaseDiscarded, PhaseClosed, PhaseCrashed, PhaseNoDocument,
		PhaseDialogOpen, PhasePaused, PhaseLoaded, PhaseCommitted, PhaseLoading,
	}
}

// PhaseOf returns the phase of a tab in state s. It checks the State's
// facts in the order [Blocked] does, so a phase after PhaseNoDocument is
// one [Blocked] lets an eval through, and each one before names the
// refusal [Blocked] gives.
func PhaseOf(s State) Phase {
	switch {
	case s.BrowserGone:
		return PhaseBrowserGone
	case s.Discarded:
		return PhaseDiscarded
	case s.Closed:
		return PhaseClosed
	case s.Crashed:
		return PhaseCrashed
	case s.LoadError != "", s.ErrorPage, strings.HasPrefix(s.URL, errorPagePrefix):
		return PhaseNoDocument
	case s.DialogOpen:
		return PhaseDialogOpen
	case s.Paused:
		return PhasePaused
	case s.Committed && s.Loaded:
		return PhaseLoaded
	case s.Committed:
		return PhaseCommitted
	}
	return PhaseLoading
}

// String returns the phase's name without its prefix, such as "Loaded".
func (p Phase) String() string {
	switch p {
	case PhaseBrowserGone:
		return "BrowserGone"
	case PhaseDiscarded:
		return "Discarded"
	case PhaseClosed:
		return "Closed"
	case PhaseCrashed:
		return "Crashed"
	case PhaseNoDocument:
		return "NoDocument"
	case PhaseDialogOpen:
		return "DialogOpen"
	case PhasePaused:
		return "Paused"
	case PhaseLoaded:
		return "Loaded"
	case PhaseCommitted:
		return "Committed"
	case PhaseLoading:
		return "Loading"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}
