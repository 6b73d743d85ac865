package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

func ExampleWatcher_Navigate() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	home := w.State().URL

	err = w.Navigate(ctx, deadURL())
	fmt.Println(errors.Is(err, tabguard.ErrNoDocument), strings.Contains(err.Error(), "net::ERR_CONNECTION_REFUSED"))

	// Navigate returns once the new page has committed: the next eval
	// works at once, with no load loop of the caller's own.
	fmt.Println(w.Navigate(ctx, home+"?again"))
	res, err := w.Eval(ctx, `() => location.search`)
	fmt.Println(res.Value.Str(), err)
	// Output:
	// true true
	// <nil>
	// ?again <nil>
}

func ExampleWatcher_Reload() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	crashTab(page)
	if _, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Crashed }); err != nil {
		fmt.Println(err)
		return
	}
	// rod's page.Reload runs JavaScript, which a crashed tab never answers;
	// Watcher.Reload reloads from the browser side.
	fmt.Println(w.Reload(ctx))
	// Reload returns at the commit: the new document answers, though its
	// body may still be on its way.
	res, err := w.Eval(ctx, `() => location.protocol`)
	fmt.Println(res.Value.Str(), err)
	// Output:
	// <nil>
	// http: <nil>
}

func ExampleWatcher_HandleDialog() {
	page, done := exampleTab(`<button onclick="window.answer = confirm('Delete?')">delete</button>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if _, err := w.Eval(ctx, `() => { setTimeout(() => document.querySelector("button").click(), 0) }`); err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.DialogOpen })
	fmt.Println(err, w.Blocked(ctx))

	fmt.Println(w.HandleDialog(ctx, false, "")) // press Cancel
	res, err := w.Eval(ctx, `() => window.answer`)
	fmt.Println(res.Value.Bool(), err)
	fmt.Println(w.HandleDialog(ctx, true, ""))
	// Output:
	// <nil> tab has a JavaScript dialog open: confirm "Delete?": accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs
	// <nil>
	// false <nil>
	// no JavaScript dialog is open
}

func ExampleWatcher_Wait() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	go crashTab(page)
	// Wait wakes on each event of the tab; it never polls the renderer.
	s, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.CrashReason != "" })
	fmt.Println(s.Crashed, s.CrashReason, err)
	// Output: true crashed <nil>
}

func ExampleDialogPolicy() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{Dialogs: tabguard.DialogAccept})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Under DialogAccept the dialog the eval opens is accepted as it opens,
	// and the eval goes on.
	res, err := w.Eval(ctx, `() => { alert("saved"); return confirm("leave?") }`)
	fmt.Println(res.Value.Bool(), err)
	// Output: true <nil>
}

func ExampleWatchBrowser() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	b := page.Browser()

	// One subscription to the browser's events for every watched tab.
	bw, err := tabguard.WatchBrowser(b, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	w1, err := bw.Watch(page)
	if err != nil {
		fmt.Println(err)
		return
	}
	other, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		fmt.Println(err)
		return
	}
	w2, err := bw.Watch(other)
	if err != nil {
		fmt.Println(err)
		return
	}
	crashTab(page)
	_, err = w1.Wait(ctx, func(s tabguard.TabState) bool { return s.Crashed })
	fmt.Println(err, errors.Is(w1.Blocked(ctx), tabguard.ErrTabCrashed), w2.Blocked(ctx))
	// Output: <nil> true <nil>
}

func ExampleBrowserWatcher_Watch() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), &tabguard.Options{EvalTimeout: 2 * time.Second})
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
	defer w.Close() // done with this tab; bw goes on
	res, err := w.Eval(context.Background(), `() => document.title`)
	fmt.Println(res.Value.Str(), err)
	// Output: Orders <nil>
}

func ExampleBrowserWatcher_Close() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := bw.Watch(page)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Close ends every Watcher it handed out; the tabs stay open.
	fmt.Println(bw.Close())
	_, err = w.Eval(context.Background(), `() => 1`)
	fmt.Println(errors.Is(err, tabguard.ErrWatcherClosed))
	// Output:
	// <nil>
	// true
}

func ExampleTruncateDOMNotice() {
	// A notice in the terms of the program's own users, here an MCP tool
	// whose cap is called max_bytes.
	notice := func(shown, size, maxBytes int) string {
		return fmt.Sprintf("<!-- %d of %d bytes; call get_tab_dom with a larger max_bytes (now %d) -->", shown, size, maxBytes)
	}
	out, truncated := tabguard.TruncateDOMNotice("<p>héllo</p>", 5, notice)
	fmt.Println(truncated)
	fmt.Println(out)
	// Output:
	// true
	// <p>h
	// <!-- 4 of 13 bytes; call get_tab_dom with a larger max_bytes (now 5) -->
}

func ExampleDefaultNotice() {
	fmt.Println(tabguard.DefaultNotice(102397, 5242880, 102400))
	// Output: <!-- truncated: showing 102397 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->
}

func ExampleBlockedError_Problem() {
	err := &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, URL: "http://127.0.0.1:8080/", Detail: "oom"}
	// An HTTP endpoint words its own advice, naming its own routes.
	fmt.Println(err.Problem() + ": call POST /browser/reload")
	fmt.Println(err.Advice())
	// Output:
	// tab renderer crashed (reason: oom): call POST /browser/reload
	// reload the tab (Watcher.Reload)
}

func ExampleTabState_Reached() {
	page, done := exampleTab(`<title>Orders</title><p>3 open</p>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Navigate returns at the commit. A program that listened for Chrome's
	// firstMeaningfulPaint lifecycle event waits for the milestone instead:
	// the watcher keeps the milestones of the tab's current document.
	if err := w.Navigate(ctx, w.State().URL+"?fresh"); err != nil {
		fmt.Println(err)
		return
	}
	s, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Reached(tabguard.FirstMeaningfulPaint) })
	fmt.Println(s.Reached(tabguard.DOMContentLoaded|tabguard.FirstContentfulPaint), err)
	res, err := w.Eval(ctx, `() => document.querySelector("p").textContent`)
	fmt.Println(res.Value.Str(), err)
	// Output:
	// true <nil>
	// 3 open <nil>
}
