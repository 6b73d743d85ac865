package tabstate_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// A tab's events, decoded from the method names and JSON params Chrome
// sends, move it from loading to loaded; a crash then refuses every eval
// until a new navigation starts.
func Example() {
	var tab tabstate.Tab
	for _, msg := range []struct{ method, params string }{
		{"Page.frameStartedNavigating", `{"frameId":"F","loaderId":"L1","url":"http://127.0.0.1:8080/","navigationType":"differentDocument"}`},
		{"Page.frameNavigated", `{"frame":{"id":"F","loaderId":"L1","url":"http://127.0.0.1:8080/"}}`},
		{"Page.loadEventFired", `{"timestamp":1}`},
		{"Inspector.targetCrashed", `{}`},
	} {
		if ev, ok := tabstate.Decode(msg.method, []byte(msg.params)); ok {
			tab.Apply(ev)
			fmt.Println(tabstate.PhaseOf(tab.State()))
		}
	}
	fmt.Println(tabstate.Blocked(tab.State()))
	// Output:
	// Loading
	// Committed
	// Loaded
	// Crashed
	// tab renderer crashed: reload the tab (Watcher.Reload)
}

func ExampleDecode() {
	ev, ok := tabstate.Decode("Page.javascriptDialogOpening", []byte(`{"type":"alert","message":"hi","url":"http://127.0.0.1/"}`))
	fmt.Printf("%v %+v\n", ok, ev)
	_, ok = tabstate.Decode("Network.requestWillBeSent", []byte(`{}`))
	fmt.Println(ok) // not an event the machine keeps
	// Output:
	// true {Type:alert Message:hi DefaultPrompt:}
	// false
}

func ExampleTab_Apply() {
	var tab tabstate.Tab
	tab.Learn("http://127.0.0.1:8080/", true, 0) // what a new watcher finds
	change := tab.Apply(tabstate.DialogOpening{Type: "confirm", Message: "leave?"})
	fmt.Println(change != 0, tab.State().DialogOpen)
	change = tab.Apply(tabstate.DialogClosed{})
	fmt.Println(change != 0, tab.State().DialogOpen)
	// Output:
	// true true
	// true false
}

func ExampleBlocked() {
	err := tabstate.Blocked(tabstate.State{URL: "http://127.0.0.1:1/", LoadError: "net::ERR_CONNECTION_REFUSED"})
	fmt.Println(errors.Is(err, tabstate.ErrNoDocument))
	var be *tabstate.BlockedError
	if errors.As(err, &be) {
		fmt.Println(be.Problem())
	}
	fmt.Println(tabstate.Blocked(tabstate.State{URL: "http://127.0.0.1:8080/", Committed: true}))
	// Output:
	// true
	// tab has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:1/
	// <nil>
}

// A server shows the problem and its own call that ends it, instead of
// the library's advice.
func ExampleBlockedError_Problem() {
	err := tabstate.Blocked(tabstate.State{Committed: true, DialogOpen: true, DialogType: "alert", DialogMessage: "hi"})
	var be *tabstate.BlockedError
	if errors.As(err, &be) && errors.Is(be, tabstate.ErrDialogOpen) {
		fmt.Println(be.Problem() + ": call handle_dialog")
	}
	// Output:
	// tab has a JavaScript dialog open: alert "hi": call handle_dialog
}

func ExamplePhaseOf() {
	s := tabstate.State{URL: "http://127.0.0.1:8080/", Committed: true, Loaded: true}
	fmt.Println(tabstate.PhaseOf(s))
	s.Paused = true
	fmt.Println(tabstate.PhaseOf(s))
	s.Closed = true
	fmt.Println(tabstate.PhaseOf(s))
	// Output:
	// Loaded
	// Paused
	// Closed
}

// How a crashed tab comes back, or ends.
func ExampleTransitions() {
	for _, t := range tabstate.Transitions() {
		if t.From == tabstate.PhaseCrashed {
			fmt.Printf("%v -> %v on %v: %s\n", t.From, t.To, t.Event, t.Label)
		}
	}
	// Output:
	// Crashed -> Loading on ReloadedAfterCrash: a new renderer loads the page
	// Crashed -> NoDocument on ReloadedAfterCrash: a new renderer: the crashed load's error stays until a navigation starts
	// Crashed -> Loading on NavigationStarted: a navigation loads the page in a new renderer
	// Crashed -> Committed on FrameNavigated: a page commits in a new renderer
	// Crashed -> NoDocument on FrameNavigated: an older load's page commits: the newer load's error stays
	// Crashed -> NoDocument on ErrorPageNavigated: the error page commits in a new renderer
	// Crashed -> Loading on ErrorPageNavigated: an older load's error page commits during a newer load
	// Crashed -> Closed on Detached: the tab closes
	// Crashed -> Discarded on Discarded: the browser discards the tab
	// Crashed -> BrowserGone on Disconnected: the connection is lost
}

func ExampleEvalWithTimeout() {
	_, err := tabstate.EvalWithTimeout(context.Background(), 10*time.Millisecond, func(ctx context.Context) (string, error) {
		<-ctx.Done() // a backend call that never answers on its own
		return "", ctx.Err()
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, tabstate.ErrEvalTimeout), errors.Is(err, context.DeadlineExceeded))
	// Output:
	// eval timed out after 10ms
	// true true
}

func ExampleURLPolicy_Check() {
	policy := tabstate.URLPolicy{BlockedOrigins: []string{"169.254.169.254"}}
	fmt.Println(policy.Check("https://example.com/"))
	fmt.Println(policy.Check("http://2852039166/latest/meta-data/"))
	fmt.Println(policy.Check("file:///etc/passwd"))
	// Output:
	// <nil>
	// URL not allowed: http://2852039166/latest/meta-data/: its origin http://169.254.169.254 is blocked
	// URL not allowed: file:///etc/passwd: the file: scheme is not allowed
}

func ExampleDialogPolicy() {
	for _, p := range []tabstate.DialogPolicy{tabstate.DialogRefuse, tabstate.DialogAccept, tabstate.DialogDismiss} {
		fmt.Println(p)
	}
	// Output:
	// DialogRefuse
	// DialogAccept
	// DialogDismiss
}

func ExampleDiagnose() {
	// What the probes a watcher sends before an eval's deadline found: the
	// evaluate and the timer went unanswered, the interrupt answered.
	cause, err := tabstate.Diagnose(tabstate.Probes{
		Evaluate: context.DeadlineExceeded,
		Timer:    context.DeadlineExceeded,
	})
	fmt.Println(cause, err)
	fmt.Println(cause.Describe("http://127.0.0.1:8080/"))
	// Output:
	// TimeoutBusyScript <nil>
	// busy running script on committed page http://127.0.0.1:8080/
}

func ExampleProbes_Proven() {
	// Nothing but the browser answered in the 200 ms a 400 ms deadline left
	// the probes, where proving a hung renderer takes 1 s: no cause is
	// named. The same answers over a whole second prove the hang.
	late := context.DeadlineExceeded
	short := tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Window: 200 * time.Millisecond, Due: time.Second}
	cause, _ := tabstate.Diagnose(short)
	fmt.Println(short.Proven(), cause)
	long := short
	long.Window = time.Second
	cause, _ = tabstate.Diagnose(long)
	fmt.Println(long.Proven(), cause)
	// Output:
	// false TimeoutUnknown
	// true TimeoutHung
}

func ExampleTimeoutError_Problem() {
	url := "http://127.0.0.1:8080/"
	err := error(&tabstate.TimeoutError{
		Limit:  5 * time.Second,
		Cause:  tabstate.TimeoutHung,
		Doing:  "renderer of page " + url + " answers nothing",
		Advice: "close the tab with Watcher.CloseTab and open a new one",
	})
	fmt.Println(err)

	// A server that offers its callers other calls words its own advice.
	var te *tabstate.TimeoutError
	if errors.As(err, &te) && te.Cause == tabstate.TimeoutHung {
		fmt.Println(te.Problem() + ": POST /tabs/close")
	}
	// Output:
	// eval timed out after 5s (renderer of page http://127.0.0.1:8080/ answers nothing: close the tab with Watcher.CloseTab and open a new one)
	// eval timed out after 5s (renderer of page http://127.0.0.1:8080/ answers nothing): POST /tabs/close
}

func ExampleTimeout() {
	advice := func(c tabstate.TimeoutCause) string {
		if c == tabstate.TimeoutBusyScript {
			return "set Options.TerminateOnTimeout"
		}
		return ""
	}
	url := "http://127.0.0.1:8080/"
	fmt.Println(tabstate.Timeout(time.Second, url, tabstate.TimeoutBusyScript, advice, nil, 0))

	// With a terminate call, its outcome replaces the advice.
	stopped := func() error { return nil }
	fmt.Println(tabstate.Timeout(time.Second, url, tabstate.TimeoutBusyScript, advice, stopped, 100*time.Millisecond))
	// Output:
	// eval timed out after 1s (busy running script on committed page http://127.0.0.1:8080/: set Options.TerminateOnTimeout)
	// eval timed out after 1s (busy running script on committed page http://127.0.0.1:8080/: script terminated, the tab answers again)
}

// A document's lifecycle milestones come from Chrome's Page.lifecycleEvent,
// the main frame's only; the next document starts with none.
func ExampleState_Reached() {
	tab := tabstate.Tab{MainFrame: "F"}
	for _, msg := range []struct{ method, params string }{
		{"Page.frameNavigated", `{"frame":{"id":"F","loaderId":"L1","url":"http://127.0.0.1:8080/"}}`},
		{"Page.lifecycleEvent", `{"frameId":"F","loaderId":"L1","name":"firstContentfulPaint","timestamp":1}`},
		{"Page.lifecycleEvent", `{"frameId":"I","loaderId":"L9","name":"networkIdle","timestamp":2}`}, // an iframe's
		{"Page.lifecycleEvent", `{"frameId":"F","loaderId":"L1","name":"networkIdle","timestamp":3}`},
		{"Page.frameNavigated", `{"frame":{"id":"F","loaderId":"L2","url":"http://127.0.0.1:8080/next"}}`},
	} {
		if ev, ok := tabstate.Decode(msg.method, []byte(msg.params)); ok {
			tab.Apply(ev)
			s := tab.State()
			fmt.Println(s.Reached(tabstate.NetworkIdle), s.Milestones)
		}
	}
	// Output:
	// false none
	// false FirstContentfulPaint
	// false FirstContentfulPaint
	// true FirstContentfulPaint|NetworkIdle
	// false none
}

// A service whose errors reach its users words the advice of every error
// its own way, or leaves it out.
func ExampleAdvice_Words() {
	a := &tabstate.Advice{Word: func(err error, advice string) string {
		var te *tabstate.TimeoutError
		if errors.As(err, &te) {
			return "try again in a minute"
		}
		return "" // the problem alone
	}}
	fmt.Println(a.Refusal(&tabstate.BlockedError{Reason: tabstate.ErrTabCrashed, Detail: "oom"}))
	fmt.Println(a.Words(&tabstate.TimeoutError{Limit: 5 * time.Second, Cause: tabstate.TimeoutBusyScript,
		Doing: "busy running script", Advice: "set Options.TerminateOnTimeout"}))
	// Output:
	// tab renderer crashed (reason: oom)
	// eval timed out after 5s (busy running script: try again in a minute)
}
