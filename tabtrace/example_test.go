package tabtrace_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// A Trace that counts refusals by reason and logs each crash; set it as a
// watcher's Options.Trace (tabguard.Options, chromedpguard.Options).
func ExampleTrace() {
	var (
		mu       sync.Mutex
		refusals = map[string]int{}
	)
	trace := &tabtrace.Trace{
		CallDone: func(ctx context.Context, c tabtrace.Call, d tabtrace.Done) {
			if d.Outcome == tabtrace.OutcomeRefused {
				mu.Lock()
				refusals[d.Reason.Error()]++
				mu.Unlock()
			}
		},
		TabChanged: func(c tabtrace.Change) {
			if c.Kind == tabtrace.TabCrashed {
				slog.Warn("tab crashed", "target", c.TargetID, "origin", tabtrace.Origin(c.URL), "status", c.Detail)
			}
		},
	}

	// What a watcher tells the Trace of an eval on a crashed tab:
	call := tabtrace.Call{Op: tabtrace.OpEval, TargetID: "T1", URL: "https://example.com/cart?token=secret"}
	err := &tabstate.BlockedError{Reason: tabstate.ErrTabCrashed, URL: call.URL}
	trace.CallDone(context.Background(), call, tabtrace.Done{
		Outcome: tabtrace.OutcomeRefused, Err: err, Reason: tabstate.ErrTabCrashed, Refused: tabtrace.RefusedFromState,
	})
	fmt.Println(refusals, errors.Is(err, tabstate.ErrTabCrashed), tabtrace.Origin(call.URL))
	// Output: map[tab renderer crashed:1] true https://example.com
}

// Origin keeps what of a URL may leave the program.
func ExampleOrigin() {
	fmt.Println(tabtrace.Origin("http://user:pw@127.0.0.1:8080/a/b?token=x#f"))
	fmt.Println(tabtrace.Origin("about:blank"))
	// Output:
	// http://127.0.0.1:8080
	// about:
}
