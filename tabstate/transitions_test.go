package tabstate_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// move is a phase change: the key of a row of the transition table.
type move struct {
	from tabstate.Phase
	kind tabstate.Kind
	to   tabstate.Phase
}

func (m move) String() string { return fmt.Sprintf("%v --%v--> %v", m.from, m.kind, m.to) }

// rows indexes tabstate.Transitions by move.
func rows() map[move]tabstate.Transition {
	out := map[move]tabstate.Transition{}
	for _, tr := range tabstate.Transitions() {
		out[move{tr.From, tr.Event, tr.To}] = tr
	}
	return out
}

// apply applies ev to tab, as Tab.Apply does, and returns the move it made,
// with ok false when the phase stayed.
func apply(tab *tabstate.Tab, ev tabstate.Event) (m move, ok bool) {
	from := tabstate.PhaseOf(tab.State())
	tab.Apply(ev)
	to := tabstate.PhaseOf(tab.State())
	return move{from, tabstate.KindOf(ev), to}, from != to
}

// crashProof are the events only a live renderer sends: the generated
// sequences never give them to a crashed tab.
func crashProof(ev tabstate.Event) bool {
	switch ev.(type) {
	case tabstate.DialogOpening, tabstate.Paused, tabstate.LoadFired, tabstate.NavigatedWithinDocument:
		return true
	}
	return false
}

// alphabet is every event of TestTab's sequences, once, plus the few that
// reach the rest of the machine: a commit of the second page, a load of
// the third failing, other frames' navigations, a discard.
func alphabet() []tabstate.Event {
	var evs []tabstate.Event
	seen := map[string]bool{}
	add := func(ev tabstate.Event) {
		if k := fmt.Sprintf("%T%+v", ev, ev); !seen[k] {
			seen[k] = true
			evs = append(evs, ev)
		}
	}
	for _, tc := range tabCases() {
		for _, ev := range tc.events {
			add(ev)
		}
	}
	for _, ev := range []tabstate.Event{
		tabstate.FrameNavigated{FrameID: frame, LoaderID: "L2", URL: next},
		tabstate.LoadingFailed{RequestID: "L3", ErrorText: "net::ERR_NAME_NOT_RESOLVED"},
		tabstate.NavigationStarted{FrameID: "F2", LoaderID: "L9", URL: next, Type: "differentDocument"},
		tabstate.StoppedLoading{FrameID: "F2"},
		tabstate.Discarded{ReplacementID: "T2"},
	} {
		add(ev)
	}
	return evs
}

// exploration is what driving the machine through every event sequence of
// the alphabet found.
type exploration struct {
	states int
	taken  map[move]bool
	bad    map[move]string   // moves not in the table, with a sequence that makes one
	blocks map[string]string // phase and Blocked disagreeing, with a sequence
}

// explore drives tabs from a zero Tab, one that knows its main frame and a
// blank one as Watch finds it through every sequence of events of the
// alphabet (and DialogHandled), breadth first, until no sequence reaches a
// tab that behaves differently from one seen before (tabstate.TabKey).
// It checks every move against the table, and every tab's phase against
// Blocked. It runs once for the tests that read it.
var explore = sync.OnceValue(func() exploration {
	type node struct {
		tab    *tabstate.Tab
		parent int
		via    string
	}
	blank := &tabstate.Tab{MainFrame: frame}
	blank.Learn("about:blank", true, 0)
	blank.LearnLoaded(0)
	nodes := []node{{&tabstate.Tab{}, -1, "zero Tab"}, {&tabstate.Tab{MainFrame: frame}, -1, "Tab{MainFrame}"}, {blank, -1, "blank tab"}}
	seen := map[any]bool{}
	for _, n := range nodes {
		seen[tabstate.TabKey(n.tab)] = true
	}
	path := func(i int, last string) string {
		steps := []string{last}
		for ; i >= 0; i = nodes[i].parent {
			steps = append(steps, nodes[i].via)
		}
		for l, r := 0, len(steps)-1; l < r; l, r = l+1, r-1 {
			steps[l], steps[r] = steps[r], steps[l]
		}
		return strings.Join(steps, " | ")
	}
	x := exploration{taken: map[move]bool{}, bad: map[move]string{}, blocks: map[string]string{}}
	table := rows()
	evs := alphabet()
	// Each event's name, once: formatting it on every move of every node
	// took half the exploration's time.
	names := make([]string, len(evs))
	for j, ev := range evs {
		names[j] = fmt.Sprintf("%T%+v", ev, ev)
	}
	for i := 0; i < len(nodes); i++ {
		for j := 0; j <= len(evs); j++ {
			tab := tabstate.CloneTab(nodes[i].tab)
			var (
				m   move
				ok  bool
				via string
			)
			if j == len(evs) {
				from := tabstate.PhaseOf(tab.State())
				tab.DialogHandled(tab.Dialogs())
				m = move{from, tabstate.KindDialogClosed, tabstate.PhaseOf(tab.State())}
				ok, via = m.from != m.to, "DialogHandled"
			} else {
				if crashProof(evs[j]) && tab.State().Crashed {
					continue
				}
				m, ok = apply(tab, evs[j])
				via = names[j]
			}
			if ok {
				x.taken[m] = true
				if _, listed := table[m]; !listed && x.bad[m] == "" {
					x.bad[m] = path(i, via)
				}
			}
			if k := tabstate.TabKey(tab); !seen[k] {
				seen[k] = true
				nodes = append(nodes, node{tab, i, via})
				if msg := blockedAgrees(tab.State()); msg != "" && x.blocks[msg] == "" {
					x.blocks[msg] = path(i, via)
				}
			}
		}
	}
	x.states = len(nodes)
	return x
})

// blockedAgrees says how PhaseOf and Blocked disagree on s, or "".
func blockedAgrees(s tabstate.State) string {
	want := map[tabstate.Phase]error{
		tabstate.PhaseBrowserGone: tabstate.ErrBrowserGone,
		tabstate.PhaseDiscarded:   tabstate.ErrTabDiscarded,
		tabstate.PhaseClosed:      tabstate.ErrTabClosed,
		tabstate.PhaseCrashed:     tabstate.ErrTabCrashed,
		tabstate.PhaseNoDocument:  tabstate.ErrNoDocument,
		tabstate.PhaseDialogOpen:  tabstate.ErrDialogOpen,
		tabstate.PhasePaused:      tabstate.ErrPaused,
	}[tabstate.PhaseOf(s)]
	err := tabstate.Blocked(s)
	if (err == nil) != (want == nil) || !errors.Is(err, want) {
		return fmt.Sprintf("phase %v, Blocked() = %v", tabstate.PhaseOf(s), err)
	}
	return ""
}

func TestTransitionsListed(t *testing.T) {
	t.Parallel()
	x := explore()
	for m, seq := range x.bad {
		t.Errorf("the machine moves %v, which Transitions does not list; after %s", m, seq)
	}
	t.Logf("%d distinct tabs, %d moves", x.states, len(x.taken))
}

func TestTransitionsTaken(t *testing.T) {
	t.Parallel()
	x := explore()
	for _, tr := range tabstate.Transitions() {
		if !x.taken[move{tr.From, tr.Event, tr.To}] {
			t.Errorf("Transitions lists %v (%s), which no event sequence makes", move{tr.From, tr.Event, tr.To}, tr.Label)
		}
	}
}

func TestPhaseOfAgreesWithBlocked(t *testing.T) {
	t.Parallel()
	for msg, seq := range explore().blocks {
		t.Errorf("%s; after %s", msg, seq)
	}
}

func TestTransitionsTable(t *testing.T) {
	t.Parallel()
	phases := map[tabstate.Phase]bool{}
	for _, p := range tabstate.Phases() {
		phases[p] = true
	}
	kinds := map[tabstate.Kind]bool{}
	for _, k := range tabstate.Kinds() {
		kinds[k] = true
	}
	seen := map[move]bool{}
	for _, tr := range tabstate.Transitions() {
		m := move{tr.From, tr.Event, tr.To}
		switch {
		case seen[m]:
			t.Errorf("%v is listed twice", m)
		case tr.From == tr.To:
			t.Errorf("%v moves nowhere", m)
		case !phases[tr.From] || !phases[tr.To] || !kinds[tr.Event]:
			t.Errorf("%v names an unknown phase or kind", m)
		case tr.Label == "":
			t.Errorf("%v has no label", m)
		}
		seen[m] = true
	}
}
