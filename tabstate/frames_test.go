package tabstate_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

// The iframes of TestFrames: frame ("F1", the tab's main frame) holds
// iframe, which holds nested; sibling is iframe's sibling.
const (
	iframe, nested, sibling = "I1", "I2", "I3"
	samePage                = "http://127.0.0.1:8080/same"
	crossPage               = "http://localhost:8080/cross"
	deadPage                = "http://127.0.0.1:9/"
	refused                 = "net::ERR_CONNECTION_REFUSED"
)

// ev is a step that applies an event.
func ev(e tabstate.Event) frameStep { return frameStep{ev: e} }

// moved is a step that calls FrameMoved.
func moved(id, url string) frameStep { return frameStep{id: id, url: url} }

// attachedTo is iframe id joining parent and starting to load url, with
// loader "L"+id.
func attachedTo(id, parent, url string) []frameStep {
	return []frameStep{
		ev(tabstate.FrameAttached{FrameID: id, ParentID: parent}),
		ev(tabstate.NavigationStarted{FrameID: id, LoaderID: "L" + id, URL: url, Type: "differentDocument"}),
	}
}

// committedIn is iframe id of parent loading and committing url.
func committedIn(id, parent, url string) []frameStep {
	return append(attachedTo(id, parent, url),
		ev(tabstate.FrameNavigated{FrameID: id, ParentID: parent, LoaderID: "L" + id, URL: url}))
}

// swapped is iframe id of the page sent to crossPage, which moves it to a
// process of its own, as Chrome tells of it with site isolation on.
func swapped(id string) []frameStep {
	return append(attachedTo(id, frame, crossPage),
		moved(id, ""), moved(id, crossPage), // Target.targetCreated, Target.targetInfoChanged
		ev(tabstate.FrameDetached{FrameID: id, Reason: "swap"}))
}

// steps joins step lists after a tab that loaded home.
func steps(lists ...[]frameStep) []frameStep {
	var out []frameStep
	for _, e := range loaded() {
		out = append(out, ev(e))
	}
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func TestFrames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		steps  []frameStep
		want   []tabstate.Frame
		cut    bool   // the last step returns FrameCut
		id     string // the frame FrameBlocked is asked about, or FrameGone when the tab has none
		reason error  // its refusal, nil when evals may go
		detail string
	}{
		{
			name:  "committed",
			steps: steps(committedIn(iframe, frame, samePage)),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: samePage, Committed: true}},
			cut:   true, id: iframe,
		},
		{
			name:  "lazy: attached only, neither refused nor committed",
			steps: steps([]frameStep{ev(tabstate.FrameAttached{FrameID: iframe, ParentID: frame})}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame}},
			id:    iframe,
		},
		{
			name: "failed load",
			steps: steps(attachedTo(iframe, frame, deadPage), []frameStep{
				ev(tabstate.LoadingFailed{RequestID: "L" + iframe, ErrorText: refused}),
				ev(tabstate.FrameNavigated{FrameID: iframe, ParentID: frame, LoaderID: "L" + iframe, URL: "chrome-error://chromewebdata/", UnreachableURL: deadPage}),
			}),
			want: []tabstate.Frame{{ID: iframe, ParentID: frame, URL: deadPage, LoadError: refused, ErrorPage: true}},
			cut:  true, id: iframe, reason: tabstate.ErrNoDocument, detail: refused,
		},
		{
			name:  "a load cancelled before it commits keeps the document",
			steps: steps(committedIn(iframe, frame, samePage), []frameStep{ev(tabstate.NavigationStarted{FrameID: iframe, LoaderID: "L2", URL: deadPage, Type: "differentDocument"}), ev(tabstate.StoppedLoading{FrameID: iframe})}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: samePage, Committed: true}},
			id:    iframe,
		},
		{
			name:  "swap: out of process and still listed",
			steps: steps(attachedTo(iframe, frame, crossPage), []frameStep{ev(tabstate.FrameDetached{FrameID: iframe, Reason: "swap"})}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage, OutOfProcess: true}},
			cut:   true, id: iframe,
		},
		{
			name:  "FrameMoved after a swap: its target's URL is its document",
			steps: steps(attachedTo(iframe, frame, crossPage), []frameStep{ev(tabstate.FrameDetached{FrameID: iframe, Reason: "swap"}), moved(iframe, crossPage)}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage, Committed: true, OutOfProcess: true}},
			id:    iframe,
		},
		{
			name:  "swap as Chrome sends it: the target's news first",
			steps: steps(swapped(iframe)),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage, Committed: true, OutOfProcess: true}},
			cut:   true, id: iframe,
		},
		{
			name:  "swapped back: attached again and committed in the page's process",
			steps: steps(swapped(iframe), attachedTo(iframe, frame, samePage), []frameStep{ev(tabstate.FrameNavigated{FrameID: iframe, ParentID: frame, LoaderID: "L" + iframe, URL: samePage})}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: samePage, Committed: true}},
			cut:   true, id: iframe,
		},
		{
			name:  "removed",
			steps: steps(committedIn(iframe, frame, samePage), []frameStep{ev(tabstate.FrameDetached{FrameID: iframe, Reason: "remove"})}),
			cut:   true, id: iframe, reason: tabstate.ErrFrameDetached,
		},
		{
			name:  "crash of a frame: the tab lives on",
			steps: steps(swapped(iframe), []frameStep{ev(tabstate.TargetCrashed{TargetID: iframe, Status: "crashed"})}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage, Committed: true, OutOfProcess: true, Crashed: true, CrashReason: "crashed"}},
			cut:   true, id: iframe, reason: tabstate.ErrFrameCrashed, detail: "crashed",
		},
		{
			name:  "a crashed frame's target at another page has a new renderer",
			steps: steps(swapped(iframe), []frameStep{ev(tabstate.TargetCrashed{TargetID: iframe, Status: "crashed"}), moved(iframe, crossPage+"/again")}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage + "/again", Committed: true, OutOfProcess: true}},
			id:    iframe,
		},
		{
			name: "a cross-site frame's failed load: Chrome's error page in its own process",
			steps: steps(attachedTo(iframe, frame, crossPage), []frameStep{
				ev(tabstate.LoadingFailed{RequestID: "L" + iframe, ErrorText: refused}),
				moved(iframe, ""), moved(iframe, crossPage), ev(tabstate.FrameDetached{FrameID: iframe, Reason: "swap"}),
			}),
			want: []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage, LoadError: refused, ErrorPage: true, OutOfProcess: true}},
			cut:  true, id: iframe, reason: tabstate.ErrNoDocument, detail: refused,
		},
		{
			name: "a cross-site frame whose load failed, at a page that answers",
			steps: steps(attachedTo(iframe, frame, crossPage), []frameStep{
				ev(tabstate.LoadingFailed{RequestID: "L" + iframe, ErrorText: refused}),
				moved(iframe, ""), moved(iframe, crossPage), ev(tabstate.FrameDetached{FrameID: iframe, Reason: "swap"}),
				moved(iframe, crossPage+"/again"),
			}),
			want: []tabstate.Frame{{ID: iframe, ParentID: frame, URL: crossPage + "/again", Committed: true, OutOfProcess: true}},
			id:   iframe,
		},
		{
			name:  "a main-frame commit takes every frame",
			steps: steps(committedIn(iframe, frame, samePage), swapped(sibling), []frameStep{ev(tabstate.FrameNavigated{FrameID: frame, LoaderID: "L2", URL: next})}),
			cut:   true, id: sibling, reason: tabstate.ErrFrameDetached,
		},
		{
			name:  "a parent's removal takes its frames",
			steps: steps(committedIn(iframe, frame, samePage), committedIn(nested, iframe, samePage), committedIn(sibling, frame, samePage), []frameStep{ev(tabstate.FrameDetached{FrameID: iframe, Reason: "remove"})}),
			want:  []tabstate.Frame{{ID: sibling, ParentID: frame, URL: samePage, Committed: true}},
			cut:   true, id: nested, reason: tabstate.ErrFrameDetached,
		},
		{
			name:  "a parent's new document has frames of its own",
			steps: steps(committedIn(iframe, frame, samePage), committedIn(nested, iframe, samePage), []frameStep{ev(tabstate.FrameNavigated{FrameID: iframe, ParentID: frame, LoaderID: "L2", URL: samePage + "/2"})}),
			want:  []tabstate.Frame{{ID: iframe, ParentID: frame, URL: samePage + "/2", Committed: true}},
			cut:   true, id: nested, reason: tabstate.ErrFrameDetached,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tab := &tabstate.Tab{MainFrame: frame}
			var last tabstate.Change
			for _, s := range tt.steps {
				if s.ev == nil {
					last = tab.FrameMoved(s.id, s.url)
				} else {
					last = tab.Apply(s.ev)
				}
			}
			if diff := cmp.Diff(tt.want, tab.Frames()); diff != "" {
				t.Errorf("Frames() mismatch (-want +got):\n%s", diff)
			}
			if got := last&tabstate.FrameCut != 0; got != tt.cut {
				t.Errorf("last step's Change has FrameCut %v; want %v", got, tt.cut)
			}
			if err := tabstate.Blocked(tab.State()); err != nil {
				t.Errorf("Blocked(tab) = %v; want nil: a frame is not the tab", err)
			}
			f, ok := tab.Frame(tt.id)
			err := tabstate.FrameBlocked(f)
			if !ok {
				err = tabstate.FrameGone(tt.id)
			}
			if (err == nil) != (tt.reason == nil) || !errors.Is(err, tt.reason) {
				t.Fatalf("refusal of frame %s = %v; want %v", tt.id, err, tt.reason)
			}
			var be *tabstate.BlockedError
			if errors.As(err, &be) && (be.Frame != tt.id || tt.detail != "" && be.Detail != tt.detail) {
				t.Errorf("refusal of frame %s names frame %q, detail %q; want %q, %q", tt.id, be.Frame, be.Detail, tt.id, tt.detail)
			}
		})
	}
}

func TestLearnFrames(t *testing.T) {
	t.Parallel()
	learned := []tabstate.Frame{
		{ID: iframe, ParentID: frame, URL: samePage, Committed: true},
		{ID: frame, URL: home}, // the main frame is the tab, not an iframe
		{ID: sibling, ParentID: frame, URL: crossPage, Committed: true, OutOfProcess: true},
	}
	t.Run("no news since", func(t *testing.T) {
		t.Parallel()
		tab := &tabstate.Tab{MainFrame: frame}
		tab.LearnFrames(learned, tab.FrameNews())
		want := []tabstate.Frame{learned[0], learned[2]}
		if diff := cmp.Diff(want, tab.Frames()); diff != "" {
			t.Errorf("Frames() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("ignored after frame news", func(t *testing.T) {
		t.Parallel()
		tab := &tabstate.Tab{MainFrame: frame}
		seq := tab.FrameNews()
		tab.Apply(tabstate.FrameAttached{FrameID: nested, ParentID: frame})
		tab.LearnFrames(learned, seq)
		want := []tabstate.Frame{{ID: nested, ParentID: frame}}
		if diff := cmp.Diff(want, tab.Frames()); diff != "" {
			t.Errorf("Frames() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a frame the events told of is kept as they tell it", func(t *testing.T) {
		t.Parallel()
		tab := &tabstate.Tab{MainFrame: frame}
		tab.Apply(tabstate.FrameAttached{FrameID: iframe, ParentID: frame})
		tab.LearnFrames(learned, tab.FrameNews())
		want := []tabstate.Frame{{ID: iframe, ParentID: frame}, learned[2]}
		if diff := cmp.Diff(want, tab.Frames()); diff != "" {
			t.Errorf("Frames() mismatch (-want +got):\n%s", diff)
		}
	})
}

// A page with an iframe whose server is down and one of another site,
// which moves to a renderer process of its own: the first refuses evals,
// the second is reached through its own target.
func ExampleTab_Frames() {
	tab := tabstate.Tab{MainFrame: "F"}
	for _, e := range []tabstate.Event{
		tabstate.FrameNavigated{FrameID: "F", LoaderID: "L", URL: "http://127.0.0.1:8080/"},
		tabstate.FrameAttached{FrameID: "A", ParentID: "F"},
		tabstate.NavigationStarted{FrameID: "A", LoaderID: "LA", URL: "http://127.0.0.1:9/", Type: "differentDocument"},
		tabstate.LoadingFailed{RequestID: "LA", ErrorText: "net::ERR_CONNECTION_REFUSED"},
		tabstate.FrameAttached{FrameID: "B", ParentID: "F"},
		tabstate.NavigationStarted{FrameID: "B", LoaderID: "LB", URL: "http://localhost:8080/", Type: "differentDocument"},
		tabstate.FrameDetached{FrameID: "B", Reason: "swap"},
	} {
		tab.Apply(e)
	}
	tab.FrameMoved("B", "http://localhost:8080/") // Target.targetInfoChanged of B's own target
	for _, f := range tab.Frames() {
		fmt.Println(f.ID, tabstate.FramePhaseOf(f, true), tabstate.FrameBlocked(f))
	}
	fmt.Println(tabstate.FramePhaseOf(tab.Frame("C")))
	// Output:
	// A NoDocument frame has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:9/: reload the tab (Watcher.Reload)
	// B OutOfProcess <nil>
	// Detached
}
