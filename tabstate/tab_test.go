package tabstate_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

const (
	frame = "F1"
	home  = "http://127.0.0.1:8080/"
	next  = "http://127.0.0.1:8080/next"
)

// loaded is a tab that committed home.
func loaded() []tabstate.Event {
	return []tabstate.Event{
		tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: home, Type: "differentDocument"},
		tabstate.FrameNavigated{FrameID: frame, LoaderID: "L1", URL: home},
	}
}

// tabCase is an event sequence applied to a Tab{MainFrame: frame} and the
// State it ends in.
type tabCase struct {
	name   string
	events []tabstate.Event
	want   tabstate.State
	reason error // the refusal, nil when evals may go
}

// tabCases are the sequences of TestTab; the transition tests build their
// event sequences from the same events.
func tabCases() []tabCase {
	return []tabCase{
		{
			name:   "first load",
			events: loaded()[:1],
			want:   tabstate.State{URL: home},
		},
		{
			name:   "loaded",
			events: loaded(),
			want:   tabstate.State{URL: home, Committed: true},
		},
		{
			name:   "load event",
			events: append(loaded(), tabstate.LoadFired{}),
			want:   tabstate.State{URL: home, Committed: true, Loaded: true},
		},
		{
			name:   "crash keeps the status of Target.targetCrashed",
			events: append(loaded(), tabstate.TargetCrashed{}, tabstate.TargetCrashed{TargetID: frame, Status: "oom"}),
			want:   tabstate.State{URL: home, Committed: true, Crashed: true, CrashReason: "oom"},
			reason: tabstate.ErrTabCrashed,
		},
		{
			name: "a navigation on a crashed tab is a load",
			events: append(loaded(), tabstate.TargetCrashed{Status: "crashed"}, tabstate.ReloadedAfterCrash{},
				tabstate.NavigationStarted{FrameID: frame, LoaderID: "L2", URL: next, Type: "differentDocument"}),
			want: tabstate.State{URL: next},
		},
		{
			name: "a crash during that load wins over its late net::ERR_FAILED",
			events: append(loaded(), tabstate.TargetCrashed{Status: "crashed"}, tabstate.ReloadedAfterCrash{},
				tabstate.NavigationStarted{FrameID: frame, LoaderID: "L2", URL: next, Type: "differentDocument"},
				tabstate.TargetCrashed{Status: "killed"}, tabstate.LoadingFailed{RequestID: "L2", ErrorText: "net::ERR_FAILED"}),
			want:   tabstate.State{URL: next, Crashed: true, CrashReason: "killed", LoadError: "net::ERR_FAILED"},
			reason: tabstate.ErrTabCrashed,
		},
		{
			name: "failed load and its error page",
			events: append(loaded(), tabstate.NavigationStarted{FrameID: frame, LoaderID: "L2", URL: next, Type: "differentDocument"},
				tabstate.LoadingFailed{RequestID: "L2", ErrorText: "net::ERR_CONNECTION_REFUSED"},
				tabstate.FrameNavigated{FrameID: frame, LoaderID: "L2", URL: "chrome-error://chromewebdata/", UnreachableURL: next}),
			want:   tabstate.State{URL: next, LoadError: "net::ERR_CONNECTION_REFUSED", ErrorPage: true},
			reason: tabstate.ErrNoDocument,
		},
		{
			name: "a navigation from the error page is a load, even when the error page commits late",
			events: append(loaded(), tabstate.NavigationStarted{FrameID: frame, LoaderID: "L2", URL: next, Type: "differentDocument"},
				tabstate.LoadingFailed{RequestID: "L2", ErrorText: "net::ERR_CONNECTION_REFUSED"},
				tabstate.NavigationStarted{FrameID: frame, LoaderID: "L3", URL: home, Type: "differentDocument"},
				tabstate.FrameNavigated{FrameID: frame, LoaderID: "L2", URL: "chrome-error://chromewebdata/", UnreachableURL: next}),
			want: tabstate.State{URL: home},
		},
		{
			name: "a cancelled load gives the page back",
			events: append(loaded(), tabstate.NavigationStarted{FrameID: frame, LoaderID: "L2", URL: next, Type: "differentDocument"},
				tabstate.LoadingFailed{RequestID: "L2", ErrorText: "net::ERR_ABORTED", Canceled: true}),
			want: tabstate.State{URL: home, Committed: true},
		},
		{
			name: "a navigation abandoned at a beforeunload dialog gives the page back",
			events: append(loaded(), tabstate.NavigationStarted{FrameID: frame, LoaderID: "L2", URL: next, Type: "differentDocument"},
				tabstate.DialogOpening{Type: "beforeunload"}, tabstate.StoppedLoading{FrameID: frame}, tabstate.DialogClosed{}),
			want: tabstate.State{URL: home, Committed: true},
		},
		{
			name: "same-document navigations keep the document",
			events: append(loaded(), tabstate.NavigationStarted{FrameID: frame, URL: home + "#a", Type: "sameDocument"},
				tabstate.NavigatedWithinDocument{FrameID: frame, URL: home + "#a"}),
			want: tabstate.State{URL: home + "#a", Committed: true},
		},
		{
			name:   "iframes are not the tab",
			events: append(loaded(), tabstate.FrameNavigated{FrameID: "F2", ParentID: frame, LoaderID: "L9", URL: "chrome-error://chromewebdata/", UnreachableURL: next}),
			want:   tabstate.State{URL: home, Committed: true},
		},
		{
			name: "milestones of the main frame's document, not of its iframes",
			events: append(loaded(), tabstate.LifecycleEvent{FrameID: frame, LoaderID: "L1", Name: "DOMContentLoaded"},
				tabstate.LifecycleEvent{FrameID: "F2", LoaderID: "L9", Name: "networkIdle"},
				tabstate.LifecycleEvent{FrameID: frame, LoaderID: "L1", Name: "firstContentfulPaint"}),
			want: tabstate.State{URL: home, Committed: true, Milestones: tabstate.DOMContentLoaded | tabstate.FirstContentfulPaint},
		},
		{
			name:   "dialog",
			events: append(loaded(), tabstate.DialogOpening{Type: "alert", Message: "hi"}),
			want:   tabstate.State{URL: home, Committed: true, DialogOpen: true, DialogType: "alert", DialogMessage: "hi"},
			reason: tabstate.ErrDialogOpen,
		},
		{
			name:   "paused, then resumed",
			events: append(loaded(), tabstate.Paused{Reason: "other"}, tabstate.Resumed{}),
			want:   tabstate.State{URL: home, Committed: true},
		},
		{
			name:   "closed",
			events: append(loaded(), tabstate.Detached{TargetID: frame}),
			want:   tabstate.State{URL: home, Committed: true, Closed: true},
			reason: tabstate.ErrTabClosed,
		},
		{
			name:   "browser gone beats a crash",
			events: append(loaded(), tabstate.TargetCrashed{Status: "crashed"}, tabstate.Disconnected{}),
			want:   tabstate.State{URL: home, Committed: true, Crashed: true, CrashReason: "crashed", BrowserGone: true},
			reason: tabstate.ErrBrowserGone,
		},
	}
}

func TestTab(t *testing.T) {
	t.Parallel()
	for _, tt := range tabCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tab := tabstate.Tab{MainFrame: frame}
			for _, ev := range tt.events {
				tab.Apply(ev)
			}
			if diff := cmp.Diff(tt.want, tab.State()); diff != "" {
				t.Errorf("State() mismatch (-want +got):\n%s", diff)
			}
			if err := tabstate.Blocked(tab.State()); !errors.Is(err, tt.reason) || (err == nil) != (tt.reason == nil) {
				t.Errorf("Blocked() = %v; want %v", err, tt.reason)
			}
		})
	}
}

func TestTabChange(t *testing.T) {
	t.Parallel()
	tab := tabstate.Tab{MainFrame: frame}
	for _, ev := range loaded() {
		tab.Apply(ev)
	}
	if got := tab.Apply(tabstate.TargetCrashed{}); got != tabstate.Changed|tabstate.Cut {
		t.Errorf("first crash event = %v; want Changed|Cut", got)
	}
	if got := tab.Apply(tabstate.TargetCrashed{Status: "oom"}); got != tabstate.Changed {
		t.Errorf("second crash event = %v; want Changed: evals were cut by the first", got)
	}
	before := tab.State()
	if got := tab.Apply(tabstate.FrameNavigated{FrameID: "F2", ParentID: frame}); got != tabstate.Changed|tabstate.FrameCut {
		t.Errorf("iframe commit = %v; want Changed|FrameCut: news of the frame, not of the tab", got)
	}
	if diff := cmp.Diff(before, tab.State()); diff != "" {
		t.Errorf("iframe commit changed the tab's state (-before +after):\n%s", diff)
	}
	n := tab.Dialogs()
	tab.Apply(tabstate.ReloadedAfterCrash{})
	tab.Apply(tabstate.DialogOpening{Type: "alert"})
	if tab.DialogHandled(n) != 0 || !tab.State().DialogOpen {
		t.Errorf("DialogHandled(%d) cleared a dialog that opened after it", n)
	}
	if tab.DialogHandled(n+1) == 0 || tab.State().DialogOpen {
		t.Errorf("DialogHandled(%d) left the dialog open", n+1)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, params string
		want           tabstate.Event
	}{
		{"Target.targetCrashed", `{"targetId":"T1","status":"oom","errorCode":5}`, tabstate.TargetCrashed{TargetID: "T1", Status: "oom"}},
		{"Inspector.targetCrashed", `{}`, tabstate.TargetCrashed{}},
		{"Page.frameStartedNavigating", `{"frameId":"F1","url":"http://a/","loaderId":"L1","navigationType":"reload"}`,
			tabstate.NavigationStarted{FrameID: "F1", LoaderID: "L1", URL: "http://a/", Type: "reload"}},
		{"Page.frameNavigated", `{"frame":{"id":"F1","loaderId":"L1","url":"chrome-error://chromewebdata/","unreachableUrl":"http://a/"},"type":"Navigation"}`,
			tabstate.FrameNavigated{FrameID: "F1", LoaderID: "L1", URL: "chrome-error://chromewebdata/", UnreachableURL: "http://a/"}},
		{"Network.loadingFailed", `{"requestId":"L1","errorText":"net::ERR_FAILED","canceled":true,"type":"Document"}`,
			tabstate.LoadingFailed{RequestID: "L1", ErrorText: "net::ERR_FAILED", Canceled: true}},
		{"Page.javascriptDialogOpening", `{"url":"http://a/","message":"hi","type":"prompt","defaultPrompt":"x"}`,
			tabstate.DialogOpening{Type: "prompt", Message: "hi", DefaultPrompt: "x"}},
		{"Target.detachedFromTarget", `{"sessionId":"S1","targetId":"T1"}`, tabstate.Detached{SessionID: "S1", TargetID: "T1"}},
	}
	for _, tt := range tests {
		got, ok := tabstate.Decode(tt.method, []byte(tt.params))
		if !ok {
			t.Errorf("Decode(%s) failed", tt.method)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decode(%s) mismatch (-want +got):\n%s", tt.method, diff)
		}
	}
	if _, ok := tabstate.Decode("Network.requestWillBeSent", []byte(`{}`)); ok {
		t.Error("Decode of an unknown method succeeded")
	}
	if _, ok := tabstate.Decode("Target.targetCrashed", []byte(`{"status":`)); ok {
		t.Error("Decode of broken params succeeded")
	}
}

// A tab opened at its URL can fire its load event after its watcher has
// registered but before the watcher has learned that the page committed,
// and answer the readyState probe before it: the load still counts.
func TestLearnAfterAnEarlyLoad(t *testing.T) {
	t.Parallel()
	const home = "http://127.0.0.1:8080/"
	tests := []struct {
		name   string
		events []tabstate.Event
		learn  bool // Learn(home, committed, seq)
		want   tabstate.State
	}{
		{"load before learning", []tabstate.Event{tabstate.LoadFired{}}, true, tabstate.State{URL: home, Committed: true, Loaded: true}},
		{"no load", nil, true, tabstate.State{URL: home, Committed: true}},
		{"load of a page not committed", []tabstate.Event{tabstate.LoadFired{}}, false, tabstate.State{URL: home}},
		{"load, then a navigation", []tabstate.Event{tabstate.LoadFired{}, tabstate.NavigationStarted{FrameID: "F", LoaderID: "L2", URL: home + "next", Type: "differentDocument"}}, true,
			tabstate.State{URL: home + "next"}},
	}
	for _, tt := range tests {
		tab := tabstate.Tab{MainFrame: "F"}
		seq := tab.Seq()
		for _, e := range tt.events {
			tab.Apply(e)
		}
		tab.Learn(home, tt.learn, seq)
		if diff := cmp.Diff(tt.want, tab.State()); diff != "" {
			t.Errorf("%s: state (-want +got):\n%s", tt.name, diff)
		}
	}
}

// The page can answer the readyState probe before the owner has learned
// from the browser side that it committed: the load it reports still
// counts once the commit is learned.
func TestLearnLoadedBeforeLearn(t *testing.T) {
	t.Parallel()
	const home = "http://127.0.0.1:8080/"
	tests := []struct {
		name  string
		learn bool // Learn(home, committed, seq) after LearnLoaded
		want  tabstate.State
	}{
		{"committed", true, tabstate.State{URL: home, Committed: true, Loaded: true}},
		{"not committed", false, tabstate.State{URL: home}},
	}
	for _, tt := range tests {
		tab := tabstate.Tab{MainFrame: "F"}
		seq := tab.Seq()
		tab.LearnLoaded(seq)
		tab.Learn(home, tt.learn, seq)
		if diff := cmp.Diff(tt.want, tab.State()); diff != "" {
			t.Errorf("%s: state (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Navigating holds from a main-frame navigation's start until it commits or
// is cancelled; a failed load is under way until its error page commits,
// and an older navigation's late commit leaves the newer one under way.
func TestNavigating(t *testing.T) {
	start := func(loader, url string) tabstate.Event {
		return tabstate.NavigationStarted{FrameID: frame, LoaderID: loader, URL: url, Type: "differentDocument"}
	}
	commit := func(loader, url string) tabstate.Event {
		return tabstate.FrameNavigated{FrameID: frame, LoaderID: loader, URL: url}
	}
	tests := []struct {
		name   string
		events []tabstate.Event
		want   []bool // Navigating after each event
	}{
		{"a load commits", []tabstate.Event{start("L1", home), commit("L1", home)}, []bool{true, false}},
		{"a load fails, then its error page commits", []tabstate.Event{
			start("L1", home), tabstate.LoadingFailed{RequestID: "L1", ErrorText: "net::ERR_CONNECTION_REFUSED"},
			tabstate.FrameNavigated{FrameID: frame, LoaderID: "L1", URL: "chrome-error://chromewebdata/", UnreachableURL: home},
		}, []bool{true, true, false}},
		{"a load is cancelled", []tabstate.Event{
			start("L1", home), tabstate.LoadingFailed{RequestID: "L1", ErrorText: "net::ERR_ABORTED", Canceled: true},
		}, []bool{true, false}},
		{"an older load commits after a newer one started", []tabstate.Event{
			start("L1", home), start("L2", next), commit("L1", home), commit("L2", next),
		}, []bool{true, true, true, false}},
		{"a same-document navigation", []tabstate.Event{
			tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: home + "#a", Type: "sameDocument"},
		}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := tabstate.Tab{MainFrame: frame}
			var got []bool
			for _, e := range tt.events {
				tab.Apply(e)
				got = append(got, tab.Navigating())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Navigating after each event (-want +got):\n%s", diff)
			}
		})
	}
}
