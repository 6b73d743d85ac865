package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabguard/tabguard"
)

func ExampleEvalWithTimeout() {
	ctx := context.Background()

	// Any backend works: eval only has to honor its context.
	title, err := tabguard.EvalWithTimeout(ctx, time.Second, func(ctx context.Context) (string, error) {
		return "Orders", nil
	})
	fmt.Println(title, err)

	// An eval that never answers is cut off at the deadline.
	_, err = tabguard.EvalWithTimeout(ctx, 50*time.Millisecond, func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, tabguard.ErrEvalTimeout), errors.Is(err, context.DeadlineExceeded))
	// Output:
	// Orders <nil>
	// eval timed out after 50ms
	// true true
}

func ExampleEvalBlockedReason() {
	s := tabguard.TabState{URL: "http://127.0.0.1:8080/", Committed: true, Crashed: true, CrashReason: "oom"}
	if err := tabguard.EvalBlockedReason(s); err != nil {
		fmt.Println(err) // refuse before sending anything the tab would hold forever
	}
	fmt.Println(tabguard.EvalBlockedReason(tabguard.TabState{}))
	// Output:
	// tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)
	// <nil>
}

func ExampleTabState() {
	states := []tabguard.TabState{
		{URL: "http://127.0.0.1:8080/", Committed: true},
		{URL: "http://127.0.0.1:8080/", LoadError: "net::ERR_CONNECTION_REFUSED"},
		{URL: "http://127.0.0.1:8080/", Crashed: true, CrashReason: "killed"},
		{Closed: true},
		{BrowserGone: true},
	}
	for _, s := range states {
		fmt.Println(tabguard.EvalBlockedReason(s))
	}
	// Output:
	// <nil>
	// tab has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:8080/: navigate again (Watcher.Navigate)
	// tab renderer crashed (reason: killed): reload the tab (Watcher.Reload)
	// tab is closed: open a new tab
	// browser is gone: reconnect to or relaunch the browser
}

func ExampleBlockedError() {
	err := fmt.Errorf("read orders: %w", tabguard.EvalBlockedReason(tabguard.TabState{
		URL:       "http://127.0.0.1:8080/orders",
		LoadError: "net::ERR_NAME_NOT_RESOLVED",
	}))

	var be *tabguard.BlockedError
	if errors.As(err, &be) {
		fmt.Println(be.Reason == tabguard.ErrNoDocument)
		fmt.Println(be.URL)
		fmt.Println(be.Detail)
	}
	// Output:
	// true
	// http://127.0.0.1:8080/orders
	// net::ERR_NAME_NOT_RESOLVED
}

func ExampleBlockedError_Error() {
	err := &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, Detail: "oom"}
	fmt.Println(err.Error())
	// Output: tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)
}

// An error library that reports a chain's innermost error, its root cause,
// reports the refusal whole: the reason, with its detail.
func ExampleBlockedError_Unwrap() {
	var err error = fmt.Errorf("render invoice: %w", &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, Detail: "oom"})
	root := err
	for u := errors.Unwrap(root); u != nil; u = errors.Unwrap(root) {
		root = u
	}
	fmt.Println(errors.Is(err, tabguard.ErrTabCrashed), errors.Is(root, tabguard.ErrTabCrashed))
	fmt.Println(root)
	// Output:
	// true true
	// tab renderer crashed (reason: oom)
}

func ExampleTruncateDOM() {
	out, truncated := tabguard.TruncateDOM("<p>héllo</p>", 5) // é is 2 bytes: cut before it
	fmt.Println(truncated)
	fmt.Println(out)
	// Output:
	// true
	// <p>h
	// <!-- truncated: showing 4 of 13 bytes, cut at maxBytes 5; pass a larger maxBytes to see more -->
}

func ExampleTruncateDOM_emoji() {
	html := "<p>👩‍💻</p>" // woman, zero-width joiner, laptop: 4 + 3 + 4 bytes
	for _, n := range []int{7, 8, 11, 100} {
		out, truncated := tabguard.TruncateDOM(html, n)
		head, _, _ := strings.Cut(out, "\n")
		fmt.Printf("%d: %q %v\n", n, head, truncated)
	}
	// Output:
	// 7: "<p>👩" true
	// 8: "<p>👩" true
	// 11: "<p>👩\u200d" true
	// 100: "<p>👩\u200d💻</p>" false
}
