package tabstate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

func ExampleDiagnose_navigating() {
	// A click started a navigation to a server that never answers: the
	// tab's events say it is under way, and Chrome holds the page's calls
	// until it commits. The evaluate and the timer went unanswered, the
	// interrupt and the browser process answered.
	url := "http://127.0.0.1:8080/never"
	cause, err := tabstate.Diagnose(tabstate.Probes{
		Evaluate:      context.DeadlineExceeded,
		Timer:         context.DeadlineExceeded,
		Navigating:    true,
		NavigationURL: url,
	})
	fmt.Println(cause, err)
	fmt.Println(cause.Describe(url))
	// Output:
	// TimeoutNavigating <nil>
	// navigation to http://127.0.0.1:8080/never has not committed, and Chrome holds the page's calls until it does
}

func ExampleRecovery_String() {
	// What a watcher's Recover found and did on a tab whose calls a
	// pending navigation held: it stopped the load (Page.stopLoading), and
	// the page the navigation would have replaced answers again.
	url := "http://127.0.0.1:8080/never"
	r := tabstate.Recovery{
		Problem: &tabstate.TimeoutError{Limit: 2 * time.Second, Cause: tabstate.TimeoutNavigating,
			Doing: tabstate.TimeoutNavigating.Describe(url)},
		Action: tabstate.StoppedNavigation,
	}
	fmt.Println(r)
	// Output:
	// navigation to http://127.0.0.1:8080/never has not committed, and Chrome holds the page's calls until it does: stopped the pending navigation
}
