package tabstate_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// frameMove is a frame's phase change: the key of a row of the frame table.
type frameMove struct {
	from  tabstate.FramePhase
	event string
	to    tabstate.FramePhase
}

func (m frameMove) String() string { return fmt.Sprintf("%v --%s--> %v", m.from, m.event, m.to) }

// frameRows indexes tabstate.FrameTransitions by move.
func frameRows() map[frameMove]tabstate.FrameTransition {
	out := map[frameMove]tabstate.FrameTransition{}
	for _, tr := range tabstate.FrameTransitions() {
		out[frameMove{tr.From, tr.Event, tr.To}] = tr
	}
	return out
}

// frameStep is what the owner does to a tab: apply an event, or, when ev
// is nil, call FrameMoved(id, url). The exploration's steps name the frame
// an event is about in id too.
type frameStep struct {
	ev      tabstate.Event
	id, url string
}

// name is the step's name in the frame table.
func (s frameStep) name() string {
	if s.ev == nil {
		return "FrameMoved"
	}
	switch s.ev.(type) {
	case tabstate.FrameAttached:
		return "FrameAttached"
	case tabstate.FrameDetached:
		return "FrameDetached"
	}
	return tabstate.KindOf(s.ev).String()
}

func (s frameStep) String() string {
	if s.ev == nil {
		return fmt.Sprintf("FrameMoved(%q, %q)", s.id, s.url)
	}
	return fmt.Sprintf("%T%+v", s.ev, s.ev)
}

// frameMoves takes the step on tab and returns the phase changes of the
// frames ids, and of any other frame it had before or has after.
func frameMoves(tab *tabstate.Tab, s frameStep, ids ...string) []frameMove {
	ids = append(ids[:len(ids):len(ids)], frameIDs(tab)...)
	before := make([]tabstate.FramePhase, len(ids))
	for i, id := range ids {
		before[i] = tabstate.FramePhaseOf(tab.Frame(id))
	}
	if s.ev == nil {
		tab.FrameMoved(s.id, s.url)
	} else {
		tab.Apply(s.ev)
	}
	var out []frameMove
	seen := map[string]bool{}
	for i, id := range append(ids, frameIDs(tab)...) {
		if seen[id] {
			continue
		}
		seen[id] = true
		from := tabstate.FramePhaseDetached
		if i < len(before) {
			from = before[i]
		}
		if to := tabstate.FramePhaseOf(tab.Frame(id)); to != from {
			out = append(out, frameMove{from, s.name(), to})
		}
	}
	return out
}

func frameIDs(tab *tabstate.Tab) []string {
	var ids []string
	for _, f := range tab.Frames() {
		ids = append(ids, f.ID)
	}
	return ids
}

// The frames of the explored tab: the main frame, an iframe of the page,
// and an iframe inside that one.
const (
	mainFrame, outer, inner = "M", "P", "C"
)

// frameAlphabet is every step the exploration takes: for each iframe, its
// attach, two loads and what becomes of them, a move out of process (a
// swap and news of its own target), a crash, its removal; for the outer
// one, the steps that leave its phase as it is; and commits of the main
// frame.
func frameAlphabet() []frameStep {
	var steps []frameStep
	for _, f := range []struct{ id, parent string }{{outer, mainFrame}, {inner, outer}} {
		u1, u2 := "http://127.0.0.1:8080/"+f.id+"1", "http://localhost:8080/"+f.id+"2"
		l1, l2 := f.id+"L1", f.id+"L2"
		for _, ev := range []tabstate.Event{
			tabstate.FrameAttached{FrameID: f.id, ParentID: f.parent},
			tabstate.NavigationStarted{FrameID: f.id, LoaderID: l1, URL: u1, Type: "differentDocument"},
			tabstate.NavigationStarted{FrameID: f.id, LoaderID: l2, URL: u2, Type: "differentDocument"},
			tabstate.FrameNavigated{FrameID: f.id, ParentID: f.parent, LoaderID: l1, URL: u1},
			tabstate.FrameNavigated{FrameID: f.id, ParentID: f.parent, LoaderID: l2, URL: "chrome-error://chromewebdata/", UnreachableURL: u2},
			tabstate.LoadingFailed{RequestID: l1, ErrorText: "net::ERR_CONNECTION_REFUSED"},
			tabstate.LoadingFailed{RequestID: l2, ErrorText: "net::ERR_CONNECTION_REFUSED"},
			tabstate.LoadingFailed{RequestID: l1, ErrorText: "net::ERR_ABORTED", Canceled: true},
			tabstate.StoppedLoading{FrameID: f.id},
			tabstate.FrameDetached{FrameID: f.id, Reason: "swap"},
			tabstate.FrameDetached{FrameID: f.id, Reason: "remove"},
			tabstate.TargetCrashed{TargetID: f.id, Status: "crashed"},
		} {
			steps = append(steps, frameStep{ev: ev, id: f.id})
		}
		steps = append(steps, frameStep{id: f.id}, frameStep{id: f.id, url: u1}, frameStep{id: f.id, url: u2})
		if f.id == outer {
			// What leaves the phase as it is; once is enough.
			steps = append(steps,
				frameStep{ev: tabstate.NavigationStarted{FrameID: f.id, URL: u1 + "#a", Type: "sameDocument"}, id: f.id},
				frameStep{ev: tabstate.FrameNavigated{FrameID: f.id, ParentID: f.parent, URL: "about:blank"}, id: f.id},
				frameStep{ev: tabstate.NavigatedWithinDocument{FrameID: f.id, URL: u1 + "#a"}, id: f.id},
			)
		}
	}
	return append(steps,
		frameStep{ev: tabstate.FrameNavigated{FrameID: mainFrame, LoaderID: "ML", URL: home}, id: mainFrame},
		frameStep{ev: tabstate.FrameNavigated{FrameID: mainFrame, LoaderID: "ML", URL: "chrome-error://chromewebdata/", UnreachableURL: next}, id: mainFrame},
	)
}

// chromeSends reports whether Chrome can send step to tab's page session
// or browser session now: only a frame in a process of its own crashes
// apart from the page, and the page's session tells nothing of the loads
// of such a frame, nor anything of the frames inside it.
func chromeSends(tab *tabstate.Tab, s frameStep) bool {
	f, _ := tab.Frame(s.id)
	switch s.ev.(type) {
	case tabstate.TargetCrashed:
		if !f.OutOfProcess {
			return false
		}
	case tabstate.NavigationStarted, tabstate.LoadingFailed, tabstate.StoppedLoading, tabstate.NavigatedWithinDocument:
		if f.OutOfProcess {
			return false
		}
	}
	if s.id == inner {
		p, ok := tab.Frame(outer)
		return ok && !p.OutOfProcess
	}
	return true
}

// frameExploration is what driving a tab's iframes through every step
// sequence of the alphabet found.
type frameExploration struct {
	states int
	taken  map[frameMove]bool
	bad    map[frameMove]string // moves not in the table, with a sequence that makes one
	blocks map[string]string    // phase and FrameBlocked disagreeing, with a sequence
}

// exploreFrames drives a tab, from one that knows only its main frame,
// through every sequence of the alphabet's steps that Chrome can send,
// breadth first, until no sequence reaches iframes that behave
// differently from ones seen before (tabstate.FramesKey). It runs once
// for the tests that read it.
var exploreFrames = sync.OnceValue(func() frameExploration {
	type node struct {
		tab    *tabstate.Tab
		parent int
		via    string
	}
	nodes := []node{{&tabstate.Tab{MainFrame: mainFrame}, -1, "Tab{MainFrame}"}}
	seen := map[any]bool{tabstate.FramesKey(nodes[0].tab): true}
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
	x := frameExploration{taken: map[frameMove]bool{}, bad: map[frameMove]string{}, blocks: map[string]string{}}
	table := frameRows()
	steps := frameAlphabet()
	for i := 0; i < len(nodes); i++ {
		for _, s := range steps {
			if !chromeSends(nodes[i].tab, s) {
				continue
			}
			tab := tabstate.CloneFrames(nodes[i].tab)
			for _, m := range frameMoves(tab, s, outer, inner) {
				x.taken[m] = true
				if _, listed := table[m]; !listed && x.bad[m] == "" {
					x.bad[m] = path(i, s.String())
				}
			}
			if k := tabstate.FramesKey(tab); !seen[k] {
				seen[k] = true
				nodes = append(nodes, node{tab, i, s.String()})
				for _, f := range tab.Frames() {
					if msg := frameBlockedAgrees(f); msg != "" && x.blocks[msg] == "" {
						x.blocks[msg] = path(i, s.String())
					}
				}
			}
		}
	}
	x.states = len(nodes)
	return x
})

// frameBlockedAgrees says how FramePhaseOf and FrameBlocked disagree on f,
// or "".
func frameBlockedAgrees(f tabstate.Frame) string {
	phase := tabstate.FramePhaseOf(f, true)
	want := map[tabstate.FramePhase]error{
		tabstate.FramePhaseCrashed:    tabstate.ErrFrameCrashed,
		tabstate.FramePhaseNoDocument: tabstate.ErrNoDocument,
	}[phase]
	err := tabstate.FrameBlocked(f)
	if (err == nil) != (want == nil) || !errors.Is(err, want) {
		return fmt.Sprintf("frame phase %v, FrameBlocked() = %v", phase, err)
	}
	return ""
}

func TestFrameTransitionsListed(t *testing.T) {
	t.Parallel()
	x := exploreFrames()
	for m, seq := range x.bad {
		t.Errorf("a frame moves %v, which FrameTransitions does not list; after %s", m, seq)
	}
	t.Logf("%d distinct tabs, %d moves", x.states, len(x.taken))
}

func TestFrameTransitionsTaken(t *testing.T) {
	t.Parallel()
	x := exploreFrames()
	for _, tr := range tabstate.FrameTransitions() {
		if m := (frameMove{tr.From, tr.Event, tr.To}); !x.taken[m] {
			t.Errorf("FrameTransitions lists %v (%s), which no step sequence makes", m, tr.Label)
		}
	}
}

func TestFramePhaseOfAgreesWithFrameBlocked(t *testing.T) {
	t.Parallel()
	for msg, seq := range exploreFrames().blocks {
		t.Errorf("%s; after %s", msg, seq)
	}
	if got := tabstate.FramePhaseOf(tabstate.Frame{}, false); got != tabstate.FramePhaseDetached {
		t.Errorf("FramePhaseOf(Frame{}, false) = %v; want Detached", got)
	}
}

func TestFrameTransitionsTable(t *testing.T) {
	t.Parallel()
	phases := map[tabstate.FramePhase]bool{}
	for _, p := range tabstate.FramePhases() {
		phases[p] = true
	}
	seen := map[frameMove]bool{}
	for _, tr := range tabstate.FrameTransitions() {
		m := frameMove{tr.From, tr.Event, tr.To}
		switch {
		case seen[m]:
			t.Errorf("%v is listed twice", m)
		case tr.From == tr.To:
			t.Errorf("%v moves nowhere", m)
		case !phases[tr.From] || !phases[tr.To] || tr.Event == "":
			t.Errorf("%v names an unknown phase or no event", m)
		case tr.Label == "":
			t.Errorf("%v has no label", m)
		}
		seen[m] = true
	}
}
