package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

// The examples below run against a real headless Chromium: exampleTab
// stands in for the tab a program opens with chromedp.NewContext on its
// own allocator, and serves html at the URL it returns. The tab has a
// window of its own: a tab that another tab of its window hides paints
// nothing.
func exampleTab(html string) (tab context.Context, url string, done func()) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
	ctx, cancelOpen := context.WithTimeout(sharedBrowser, 10*time.Second)
	defer cancelOpen()
	window := true
	id, err := chromedp.CallBrowser(ctx, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: &window})
	if err != nil {
		panic(fmt.Errorf("open example tab: %w", err))
	}
	tab, cancel := chromedp.NewContext(sharedBrowser, chromedp.WithTargetID(id.TargetID))
	return tab, srv.URL, func() {
		cancel()
		srv.Close()
	}
}

func ExampleWatch() {
	tab, url, done := exampleTab(`<title>Orders</title><p>3 open</p>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()

	w, err := chromedpguard.Watch(tab, &chromedpguard.Options{EvalTimeout: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}
	// Navigate returns at the commit; the title is there once the page loaded.
	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}
	res, err := w.Eval(ctx, `() => document.title`)
	fmt.Println(string(res.Value), err)
	// Output: "Orders" <nil>
}

func ExampleEvaluate() {
	tab, url, done := exampleTab(`<title>Orders</title>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// Inside chromedp.Run, with chromedp's own actions around it.
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		fmt.Println(err)
		return
	}
	sum, err := chromedp.Run(ctx, chromedpguard.Evaluate[int](w, `(a, b) => a + b`, 1, 2))
	fmt.Println(sum, err)
	title, err := chromedp.Run(ctx, chromedpguard.Guard(w, chromedp.Title()))
	fmt.Println(title, err)
	// Output:
	// 3 <nil>
	// Orders <nil>
}

func ExampleWatcher_Reload() {
	tab, url, done := exampleTab(`<title>Orders</title>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}

	// The renderer dies. Chrome never answers Page.crash, nor any call
	// on the tab until it is navigated again.
	crashCtx, stop := context.WithTimeout(tab, 300*time.Millisecond)
	_, _ = chromedp.Call(crashCtx, page.Crash, cdp.Empty{})
	stop()
	_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Crashed })
	fmt.Println(err)

	_, err = w.Eval(ctx, `() => 1`)
	fmt.Println(err) // refused up front, with the call that recovers
	if errors.Is(err, chromedpguard.ErrTabCrashed) {
		fmt.Println(w.Reload(ctx))
	}
	res, err := w.Eval(ctx, `() => 6 * 7`) // works as soon as Reload returned
	fmt.Println(string(res.Value), err)
	// Output:
	// <nil>
	// tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)
	// <nil>
	// 42 <nil>
}

func ExampleWatcher_HandleDialog() {
	tab, url, done := exampleTab(`<title>Orders</title>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}

	// The alert holds the page: the eval that opened it is cut short.
	_, err = w.Eval(ctx, `() => alert("saved")`)
	fmt.Println(err)
	fmt.Println(w.HandleDialog(ctx, true, ""))
	res, err := w.Eval(ctx, `() => 1`)
	fmt.Println(string(res.Value), err)
	// Output:
	// tab has a JavaScript dialog open: alert "saved": accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs
	// <nil>
	// 1 <nil>
}

func ExampleTimeoutError() {
	tab, url, done := exampleTab(`<title>Orders</title>`)
	defer done()
	// No deadline of the context's: Options.EvalTimeout bounds each call.
	ctx := tab
	w, err := chromedpguard.Watch(tab, &chromedpguard.Options{EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}

	_, err = w.Eval(ctx, `() => { while (true) {} }`)
	var te *chromedpguard.TimeoutError
	if errors.As(err, &te) {
		fmt.Println(te.Limit, te.Cause) // the script was stopped at the deadline
	}
	res, err := w.Eval(ctx, `() => 1`)
	fmt.Println(string(res.Value), err)
	// Output:
	// 2s TimeoutBusyScript
	// 1 <nil>
}
