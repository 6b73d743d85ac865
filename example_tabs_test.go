package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabguard/tabguard"
)

func ExampleBrowserWatcher_Tabs() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	w, err := bw.Watch(page)
	if err != nil {
		fmt.Println(err)
		return
	}
	crashTab(page)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.CrashReason != "" }); err != nil {
		fmt.Println(err)
		return
	}
	// Tabs asks no renderer: a crashed or hung tab cannot hold it up.
	for _, ti := range bw.Tabs() {
		if ti.TargetID == page.TargetID {
			fmt.Println(ti.Title, ti.Watched, ti.Refusal)
		}
	}
	// Output: Orders true tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)
}

func ExampleBrowserWatcher_Changes() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := bw.Open(ctx, "about:blank")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w.CloseTab(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for {
		select {
		case c, ok := <-bw.Changes():
			if !ok {
				return // the BrowserWatcher is closed
			}
			if c.Tab.TargetID != w.TargetID() {
				continue
			}
			fmt.Println(c.Kind)
			if c.Kind == tabguard.TabClosed {
				return
			}
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	// Output:
	// TabOpened
	// TabClosed
}

func ExampleTabInfo() {
	ti := tabguard.TabInfo{TargetID: "T1", URL: "http://127.0.0.1:8080/", State: tabguard.TabState{URL: "http://127.0.0.1:8080/", Crashed: true}}
	// A tab no Watcher follows holds what browser-wide events tell: here, a crash.
	fmt.Println(ti.Watched, tabguard.EvalBlockedReason(ti.State))
	// Output: false tab renderer crashed: reload the tab (Watcher.Reload)
}

func ExampleTabChange() {
	c := tabguard.TabChange{Kind: tabguard.TabCrashed, Tab: tabguard.TabInfo{TargetID: "T1"}, Missed: 3}
	if c.Missed > 0 {
		fmt.Printf("%d changes dropped before this %v: read Tabs to catch up\n", c.Missed, c.Kind)
	}
	// Output: 3 changes dropped before this TabCrashed: read Tabs to catch up
}

func ExampleTabChangeKind_String() {
	fmt.Println(tabguard.TabOpened, tabguard.TabCrashed, tabguard.TabClosed, tabguard.TabChangeKind(9))
	// Output: TabOpened TabCrashed TabClosed TabChangeKind(9)
}

func ExampleConnectionError() {
	err := fmt.Errorf("eval: %w", &tabguard.ConnectionError{Reason: `close frame 1008 "session timed out"`})
	var ce *tabguard.ConnectionError
	fmt.Println(errors.Is(err, tabguard.ErrBrowserGone), errors.As(err, &ce), ce.Reason)
	// Output: true true close frame 1008 "session timed out"
}

func ExampleDOMOptions() {
	// The visible text of the first table, 2,000 bytes at a time.
	opts := tabguard.DOMOptions{Selector: "table", Text: true, MaxBytes: 2000}
	fmt.Printf("%+v\n", opts)
	// Output: {MaxBytes:2000 Snapshot: Offset:0 Selector:table Text:true Frame:}
}

func ExampleNotice() {
	var notice tabguard.Notice = func(shown, size, maxBytes int) string {
		return fmt.Sprintf("[%d of %d bytes; pass a max_bytes over %d for more]", shown, size, maxBytes)
	}
	out, _ := tabguard.TruncateDOMNotice("<p>héllo</p>", 5, notice)
	fmt.Println(out)
	// Output:
	// <p>h
	// [4 of 13 bytes; pass a max_bytes over 5 for more]
}
