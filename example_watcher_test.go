package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// The examples below run against a real headless Chromium: exampleTab
// stands in for the page a program gets from its own rod.Browser.

func ExampleWatch() {
	page, done := exampleTab(`<title>Orders</title><p>3 open</p>`)
	defer done()

	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	fmt.Println(w.State().Committed)
	// Output: true
}

func ExampleWatcher() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 30 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// The renderer dies while an eval waits on a 20 s promise. Chrome
	// would hold the call until the tab is navigated again; the watcher
	// fails it as soon as the crash event arrives.
	crashed := make(chan struct{})
	go func() {
		defer close(crashed)
		time.Sleep(200 * time.Millisecond)
		crashTab(page)
	}()
	start := time.Now()
	_, err = w.Eval(context.Background(), `() => new Promise(r => setTimeout(r, 20000))`)
	<-crashed

	fmt.Println(errors.Is(err, tabguard.ErrTabCrashed), time.Since(start) < 10*time.Second)
	// Output: true true
}

func ExampleOptions() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()

	// Keep only the level and message, so the output is the same every run.
	only := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.LevelKey || a.Key == slog.MessageKey {
			return a
		}
		return slog.Attr{}
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: only}))
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 200 * time.Millisecond, Logger: log})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	_, err = w.Eval(context.Background(), `() => new Promise(() => {})`)
	fmt.Println(errors.Is(err, tabguard.ErrEvalTimeout))
	// Output:
	// level=WARN msg="tabguard: eval timed out"
	// true
}

func ExampleDOM() {
	page, done := exampleTab(`<title>Orders</title><p>3 open</p>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	d, err := w.DOM(context.Background(), 0) // 0: up to DefaultMaxDOMBytes
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Size, d.Truncated)
	fmt.Println(d.HTML)
	// Output:
	// 73 false
	// <html><head><title>Orders</title></head><body><p>3 open</p></body></html>
}

func ExampleWatcher_Eval() {
	page, done := exampleTab(`<ul><li>ok</li><li>late</li><li>ok</li></ul>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 2 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	res, err := w.Eval(context.Background(), `(sel) => document.querySelectorAll(sel).length`, "li")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Value.Int())
	// Output: 3
}

func ExampleWatcher_DOM() {
	page, done := exampleTab(`<p>héllo wörld</p>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	d, err := w.DOM(context.Background(), 37) // 37 bytes end inside ö: cut before it
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Truncated, d.Size)
	fmt.Println(d.HTML)
	// Output:
	// true 59
	// <html><head></head><body><p>héllo w
	// <!-- truncated: showing 36 of 59 bytes, cut at maxBytes 37; pass a larger maxBytes to see more -->
}

func ExampleWatcher_Blocked() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println(w.Blocked(ctx))

	crashTab(page)
	// Chrome reports the crash by an event within milliseconds. Blocked
	// reads what the events left and sends nothing to the tab.
	for w.Blocked(ctx) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(errors.Is(w.Blocked(ctx), tabguard.ErrTabCrashed))
	// Output:
	// <nil>
	// true
}

func ExampleWatcher_State() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := page.Context(ctx).Navigate(deadURL()); err == nil {
		fmt.Println("a dead URL loaded")
		return
	}
	for w.State().LoadError == "" && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(w.State().LoadError)
	fmt.Println(errors.Is(w.Blocked(ctx), tabguard.ErrNoDocument))
	// Output:
	// net::ERR_CONNECTION_REFUSED
	// true
}

func ExampleWatcher_Close() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}

	fmt.Println(w.Close())
	_, err = w.Eval(context.Background(), `() => document.title`)
	fmt.Println(err)
	// Output:
	// <nil>
	// watcher is closed
}

// Do guards CDP calls other than an eval: here a mouse move, refused once
// the renderer has crashed.
func ExampleWatcher_Do() {
	page, done := exampleTab(`<button>Pay</button>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	move := func(p *rod.Page) error {
		return proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: 20, Y: 20}.Call(p)
	}
	fmt.Println(w.Do(ctx, move))

	crashTab(page)
	for w.Blocked(ctx) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(errors.Is(w.Do(ctx, move), tabguard.ErrTabCrashed))
	// Output:
	// <nil>
	// true
}

func ExampleTimeoutError() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	_, err = w.Eval(context.Background(), `() => { while (true) {} }`)
	var te *tabguard.TimeoutError
	if errors.As(err, &te) {
		// What the watcher found the tab doing; the script was stopped.
		fmt.Println(te.Limit, te.Cause)
	}
	res, err := w.Eval(context.Background(), `() => 1`)
	fmt.Println(res.Value, err)
	// Output:
	// 2s TimeoutBusyScript
	// 1 <nil>
}
