package tabstate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

// milestone is a Page.lifecycleEvent of frame's document loader.
func milestone(frameID, loader, name string) tabstate.Event {
	return tabstate.LifecycleEvent{FrameID: frameID, LoaderID: loader, Name: name}
}

func TestMilestones(t *testing.T) {
	t.Parallel()
	const (
		dcl  = tabstate.DOMContentLoaded
		fcp  = tabstate.FirstContentfulPaint
		idle = tabstate.NetworkIdle
	)
	start := func(loader, url string) tabstate.Event {
		return tabstate.NavigationStarted{FrameID: frame, LoaderID: loader, URL: url, Type: "differentDocument"}
	}
	commit := func(loader, url string) tabstate.Event {
		return tabstate.FrameNavigated{FrameID: frame, LoaderID: loader, URL: url}
	}
	tests := []struct {
		name   string
		events []tabstate.Event
		want   tabstate.Milestone
	}{
		{"the main frame's count", append(loaded(), milestone(frame, "L1", "DOMContentLoaded"), milestone(frame, "L1", "firstContentfulPaint")), dcl | fcp},
		{"all of them", append(loaded(), milestone(frame, "L1", "DOMContentLoaded"), milestone(frame, "L1", "firstContentfulPaint"),
			milestone(frame, "L1", "firstMeaningfulPaint"), milestone(frame, "L1", "networkAlmostIdle"), milestone(frame, "L1", "networkIdle")),
			dcl | fcp | tabstate.FirstMeaningfulPaint | tabstate.NetworkAlmostIdle | idle},
		{"an iframe's do not", append(loaded(), milestone("F2", "L9", "networkIdle"), milestone("F2", "L9", "DOMContentLoaded")), 0},
		{"names that are no milestone do not", append(loaded(), milestone(frame, "L1", "init"), milestone(frame, "L1", "commit"),
			milestone(frame, "L1", "load"), milestone(frame, "L1", "firstPaint"), milestone(frame, "L1", "firstMeaningfulPaintCandidate"),
			milestone(frame, "L1", "InteractiveTime")), 0},
		{"a navigation under way keeps the document's", append(loaded(), milestone(frame, "L1", "networkIdle"), start("L2", next)), idle},
		{"the old document's still come while a navigation is under way", append(loaded(), start("L2", next), milestone(frame, "L1", "networkIdle")), idle},
		{"a new document starts with none", append(loaded(), milestone(frame, "L1", "networkIdle"), start("L2", next), commit("L2", next)), 0},
		{"the new document's own come after its commit", append(loaded(), milestone(frame, "L1", "networkIdle"), start("L2", next),
			milestone(frame, "L2", "init"), commit("L2", next), milestone(frame, "L2", "DOMContentLoaded")), dcl},
		{"the new document's before its commit do not", append(loaded(), start("L2", next), milestone(frame, "L2", "DOMContentLoaded")), 0},
		{"the old document's after the new one's commit do not", append(loaded(), start("L2", next), commit("L2", next),
			milestone(frame, "L1", "networkIdle")), 0},
		{"a commit with no navigation seen is a new document too", append(loaded(), milestone(frame, "L1", "networkIdle"), commit("L2", next)), 0},
		{"a same-document navigation keeps them", append(loaded(), milestone(frame, "L1", "networkIdle"),
			tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: home + "#a", Type: "sameDocument"},
			tabstate.NavigatedWithinDocument{FrameID: frame, URL: home + "#a"}), idle},
		{"a crash takes them", append(loaded(), milestone(frame, "L1", "networkIdle"), tabstate.TargetCrashed{}), 0},
		{"an error page has none", append(loaded(), start("L2", next), tabstate.LoadingFailed{RequestID: "L2", ErrorText: "net::ERR_CONNECTION_REFUSED"},
			tabstate.FrameNavigated{FrameID: frame, LoaderID: "L2", URL: "chrome-error://chromewebdata/", UnreachableURL: next},
			milestone(frame, "L2", "DOMContentLoaded")), 0},
		{"an iframe's new document leaves them", append(loaded(), milestone(frame, "L1", "networkIdle"),
			tabstate.FrameNavigated{FrameID: "F2", ParentID: frame, LoaderID: "L9", URL: next}, milestone("F2", "L9", "DOMContentLoaded")), idle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tab := tabstate.Tab{MainFrame: frame}
			for _, ev := range tt.events {
				tab.Apply(ev)
			}
			if got := tab.State().Milestones; got != tt.want {
				t.Errorf("Milestones = %v; want %v", got, tt.want)
			}
		})
	}
}

// A milestone changes the State, once; one that counts for nothing is no
// change, so it wakes no waiter.
func TestMilestoneChange(t *testing.T) {
	t.Parallel()
	tab := tabstate.Tab{MainFrame: frame}
	for _, ev := range loaded() {
		tab.Apply(ev)
	}
	tests := []struct {
		ev   tabstate.Event
		want tabstate.Change
	}{
		{milestone(frame, "L1", "networkIdle"), tabstate.Changed},
		{milestone(frame, "L1", "networkIdle"), 0},
		{milestone(frame, "L1", "firstPaint"), 0},
		{milestone("F2", "L9", "DOMContentLoaded"), 0},
		{milestone(frame, "L0", "DOMContentLoaded"), 0},
	}
	for i, tt := range tests {
		if got := tab.Apply(tt.ev); got != tt.want {
			t.Errorf("event %d: Apply(%+v) = %v; want %v", i, tt.ev, got, tt.want)
		}
	}
}

// Enabling lifecycle events on a watched tab tells again the milestones of
// the document it has, which can come before the owner has learned, by
// asking, that the document is committed: they count once it has.
func TestMilestonesBeforeLearn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []tabstate.Event
		learn  bool // Learn(home, committed, seq)
		want   tabstate.Milestone
	}{
		{"committed", []tabstate.Event{milestone(frame, "L0", "DOMContentLoaded"), milestone(frame, "L0", "networkIdle")}, true,
			tabstate.DOMContentLoaded | tabstate.NetworkIdle},
		{"not committed", []tabstate.Event{milestone(frame, "L0", "DOMContentLoaded")}, false, 0},
		{"an iframe's", []tabstate.Event{milestone("F2", "L9", "DOMContentLoaded")}, true, 0},
		{"then a navigation", []tabstate.Event{milestone(frame, "L0", "networkIdle"),
			tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: next, Type: "differentDocument"}}, true, 0},
		{"of two documents, the last one's", []tabstate.Event{milestone(frame, "L0", "networkIdle"), milestone(frame, "L1", "DOMContentLoaded")}, true,
			tabstate.DOMContentLoaded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tab := tabstate.Tab{MainFrame: frame}
			seq := tab.Seq()
			for _, ev := range tt.events {
				tab.Apply(ev)
			}
			tab.Learn(home, tt.learn, seq)
			if got := tab.State().Milestones; got != tt.want {
				t.Errorf("Milestones = %v; want %v", got, tt.want)
			}
			// And the document's next milestones count as they come.
			if tt.learn && tt.want != 0 {
				tab.Apply(milestone(frame, "L1", "firstContentfulPaint"))
				tab.Apply(milestone(frame, "L0", "firstContentfulPaint"))
				if got := tab.State().Milestones; !tab.State().Reached(tabstate.FirstContentfulPaint) {
					t.Errorf("after a paint, Milestones = %v; want FirstContentfulPaint among them", got)
				}
			}
		})
	}
}

// A blank tab's document is set aside while its first navigation is under
// way, with its milestones; a cancelled navigation gives both back.
func TestMilestonesOfABlankTab(t *testing.T) {
	t.Parallel()
	tab := tabstate.Tab{MainFrame: frame}
	tab.Learn("about:blank", true, 0)
	tab.LearnLoaded(0)
	tab.Apply(milestone(frame, "L0", "networkIdle"))
	steps := []struct {
		ev   tabstate.Event
		want tabstate.Milestone
	}{
		{tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: home, Type: "differentDocument"}, 0},
		{milestone(frame, "L0", "DOMContentLoaded"), 0}, // the blank document's, set aside
		{tabstate.LoadingFailed{RequestID: "L1", ErrorText: "net::ERR_ABORTED", Canceled: true}, tabstate.NetworkIdle},
	}
	for i, st := range steps {
		tab.Apply(st.ev)
		if got := tab.State().Milestones; got != st.want {
			t.Errorf("step %d (%T): Milestones = %v; want %v", i, st.ev, got, st.want)
		}
	}
}

// The lifecycle recording replayed event by event: the blank tab's
// milestones, which enabling lifecycle events told again, count; each
// main-frame commit starts the new document with none; an iframe's
// milestone changes nothing; and each milestone the main frame's committed
// document reports is reached from then on. Two loads each end with all
// five.
func TestRecordedLifecycle(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "lifecycle.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec recording
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Tabs) != 1 {
		t.Fatalf("%d tabs recorded; want 1", len(rec.Tabs))
	}
	rt := rec.Tabs[0]
	tab := tabstate.Tab{MainFrame: rt.TargetID}
	tab.Learn(rt.Start.URL, rt.Start.Committed, 0)
	tab.LearnLoaded(0)
	const all = tabstate.DOMContentLoaded | tabstate.FirstContentfulPaint | tabstate.FirstMeaningfulPaint |
		tabstate.NetworkAlmostIdle | tabstate.NetworkIdle
	var atNavigate []tabstate.Milestone // Milestones as each Page.navigate is sent
	commits := 0
	for i, m := range rec.Events {
		if m.Command {
			if m.Method == "Page.navigate" {
				atNavigate = append(atNavigate, tab.State().Milestones)
			}
			continue
		}
		if m.SessionID != rt.SessionID {
			continue
		}
		ev, ok := tabstate.Decode(m.Method, m.Params)
		if !ok {
			t.Fatalf("event %d: Decode(%s) failed", i, m.Method)
		}
		before := tab.State().Milestones
		tab.Apply(ev)
		got := tab.State().Milestones
		switch e := ev.(type) {
		case tabstate.FrameNavigated:
			if e.ParentID == "" {
				commits++
				if got != 0 {
					t.Errorf("event %d: the main frame's commit left Milestones = %v; want none", i, got)
				}
			}
		case tabstate.LifecycleEvent:
			loader, _ := tab.Committed()
			switch {
			case e.FrameID != rt.TargetID:
				if got != before {
					t.Errorf("event %d: an iframe's %s changed Milestones from %v to %v", i, e.Name, before, got)
				}
			case commits > 0 && e.LoaderID != loader:
				if got != before {
					t.Errorf("event %d: %s of a document not committed changed Milestones from %v to %v", i, e.Name, before, got)
				}
			default:
				if want := before | tabstate.MilestoneOf(e.Name); got != want {
					t.Errorf("event %d: after %s, Milestones = %v; want %v", i, e.Name, got, want)
				}
			}
		}
	}
	want := []tabstate.Milestone{tabstate.DOMContentLoaded | tabstate.NetworkAlmostIdle | tabstate.NetworkIdle, all}
	if diff := cmp.Diff(want, atNavigate); diff != "" {
		t.Errorf("Milestones as each navigation was sent (-want +got):\n%s", diff)
	}
	if got := tab.State().Milestones; got != all || commits != 2 {
		t.Errorf("after %d commits, Milestones = %v; want 2 commits and %v", commits, got, all)
	}
}

func TestMilestoneString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    tabstate.Milestone
		want string
	}{
		{0, "none"},
		{tabstate.NetworkIdle, "NetworkIdle"},
		{tabstate.DOMContentLoaded | tabstate.FirstMeaningfulPaint, "DOMContentLoaded|FirstMeaningfulPaint"},
		{tabstate.NetworkIdle | 1<<7, "NetworkIdle|Milestone(128)"},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("Milestone(%d).String() = %q; want %q", uint8(tt.m), got, tt.want)
		}
	}
}

func TestDecodeLifecycleEvent(t *testing.T) {
	t.Parallel()
	got, ok := tabstate.Decode("Page.lifecycleEvent", []byte(`{"frameId":"F1","loaderId":"L1","name":"networkIdle","timestamp":123.4}`))
	want := tabstate.LifecycleEvent{FrameID: "F1", LoaderID: "L1", Name: "networkIdle"}
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("Decode(Page.lifecycleEvent) = _, %v; mismatch (-want +got):\n%s", ok, diff)
	}
}
