package chromedp015guard_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// exampleLoaded opens a window tab of the tests' browser, watches it with
// opts and loads html's page in it; ctx, the tab's, ends in 30 s, and done
// ends the watcher, the tab and the page's server. A failure panics: an
// example has no *testing.T to fail.
func exampleLoaded(html string, opts *chromedp015guard.Options) (w *chromedp015guard.Watcher, ctx context.Context, done func()) {
	srv := exampleServer(html)
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		srv.Close()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	w, err = chromedp015guard.Watch(tab, opts)
	if err == nil {
		err = w.Navigate(ctx, srv.URL)
	}
	if err == nil {
		_, err = w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Loaded })
	}
	done = func() {
		if w != nil {
			_ = w.Close()
		}
		cancel()
		closeTab()
		srv.Close()
	}
	if err != nil {
		done()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	return w, ctx, done
}

// exampleCrash kills the renderer of the tab of ctx, as an out-of-memory
// page would. Chrome never answers Page.crash, so the call gets a short
// context of its own.
func exampleCrash(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_ = chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error { return page.Crash().Do(ctx) }))
}

// untilBlocked waits until w refuses calls, or ctx ends.
func untilBlocked(ctx context.Context, w *chromedp015guard.Watcher) {
	for w.Blocked(ctx) == nil && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

func ExampleWatch() {
	srv := exampleServer(`<title>Orders</title><p>3 open</p>`)
	defer srv.Close()
	tab, closeTab, err := exampleWindowTab() // a program's chromedp.NewContext
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeTab()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()

	w, err := chromedp015guard.Watch(tab, &chromedp015guard.Options{EvalTimeout: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, srv.URL); err != nil {
		fmt.Println(err)
		return
	}
	// Navigate returns at the commit; the title is there once the page loaded.
	if _, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}
	res, err := w.Eval(ctx, `() => document.title`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output: "Orders"
}

func ExampleWatcher() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, &chromedp015guard.Options{EvalTimeout: 30 * time.Second})
	defer done()

	// The renderer dies while an eval waits on a 20 s promise. Chrome
	// would hold the call until the tab is navigated again; the watcher
	// fails it as soon as the crash event arrives.
	crashed := make(chan struct{})
	go func() {
		defer close(crashed)
		time.Sleep(200 * time.Millisecond)
		exampleCrash(ctx)
	}()
	_, err := w.Eval(ctx, `() => new Promise(r => setTimeout(r, 20000))`)
	<-crashed
	fmt.Println(errors.Is(err, chromedp015guard.ErrTabCrashed), ctx.Err())
	// Output: true <nil>
}

func ExampleWatcher_Eval() {
	w, ctx, done := exampleLoaded(`<ul><li>ok</li><li>late</li><li>ok</li></ul>`, &chromedp015guard.Options{EvalTimeout: 2 * time.Second})
	defer done()

	res, err := w.Eval(ctx, `(sel) => document.querySelectorAll(sel).length`, "li")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))

	// An exception is chromedp's own error, as chromedp.Evaluate gives.
	_, err = w.Eval(ctx, `() => { throw new Error("no orders") }`)
	var ee *runtime.ExceptionDetails
	fmt.Println(errors.As(err, &ee))
	// Output:
	// 3
	// true
}

func ExampleWatcher_EvalFrame() {
	w, ctx, done := exampleLoaded(`<title>outer</title><iframe id=f srcdoc="<title>inner</title><p>signed in</p>"></iframe>`, nil)
	defer done()

	frames := w.Frames()
	res, err := w.EvalFrame(ctx, frames[0].ID, `(sel) => document.title + ": " + document.querySelector(sel).textContent`, "p")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))

	// The iframe goes: a call in it says so, and the tab answers.
	if _, err := w.Eval(ctx, `() => document.getElementById("f").remove()`); err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.EvalFrame(ctx, frames[0].ID, `() => document.title`)
	fmt.Println(errors.Is(err, chromedp015guard.ErrFrameDetached), len(w.Frames()))
	// Output:
	// "inner: signed in"
	// true 0
}

func ExampleWatcher_HandleDialog() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()

	// The alert holds the page: the eval that opened it is cut short.
	_, err := w.Eval(ctx, `() => alert("saved")`)
	fmt.Println(err)
	fmt.Println(w.HandleDialog(ctx, true, ""))
	res, err := w.Eval(ctx, `() => 1`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	fmt.Println(errors.Is(w.HandleDialog(ctx, true, ""), chromedp015guard.ErrNoDialog))
	// Output:
	// tab has a JavaScript dialog open: alert "saved": accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs
	// <nil>
	// 1
	// true
}

func ExampleWatcher_Reload() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()

	// The renderer dies. Chrome never answers Page.crash, nor any call
	// on the tab until it is navigated again.
	exampleCrash(ctx)
	_, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Crashed })
	fmt.Println(err)
	_, err = w.Eval(ctx, `() => 1`)
	fmt.Println(errors.Is(err, chromedp015guard.ErrTabCrashed)) // refused up front

	// Reload reloads from the browser side, and returns at the commit.
	fmt.Println(w.Reload(ctx))
	res, err := w.Eval(ctx, `() => location.protocol`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output:
	// <nil>
	// true
	// <nil>
	// "http:"
}

func ExampleWatcher_DOM() {
	w, ctx, done := exampleLoaded(`<p>héllo wörld</p>`, nil)
	defer done()

	d, err := w.DOM(ctx, 37) // 37 bytes end inside ö: cut before it
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

func ExampleDOM() {
	w, ctx, done := exampleLoaded(`<title>Orders</title><p>3 open</p>`, nil)
	defer done()

	d, err := w.DOM(ctx, 0) // 0: up to DefaultMaxDOMBytes
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

func ExampleWatcher_Blocked() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()
	fmt.Println(w.Blocked(ctx))

	exampleCrash(ctx)
	// Chrome reports the crash by an event within milliseconds. Blocked
	// reads what the events left and sends nothing to the tab.
	untilBlocked(ctx, w)
	fmt.Println(errors.Is(w.Blocked(ctx), chromedp015guard.ErrTabCrashed))
	// Output:
	// <nil>
	// true
}

func ExampleWatcher_State() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()

	s := w.State()
	fmt.Println(s.Committed, s.Loaded, strings.HasPrefix(s.URL, "http://127.0.0.1:"))

	exampleCrash(ctx)
	// State reads what the tab's events left: no call to the tab.
	untilBlocked(ctx, w)
	s = w.State()
	fmt.Println(s.Crashed)
	// Output:
	// true true true
	// true
}

func ExampleWatcher_Close() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()

	fmt.Println(w.Close())
	_, err := w.Eval(ctx, `() => document.title`)
	fmt.Println(err)
	// The tab stays open: chromedp still reaches it.
	var title string
	err = chromedp.Run(ctx, chromedp.Title(&title))
	fmt.Println(title, err)
	// Output:
	// <nil>
	// watcher is closed
	// Orders <nil>
}

func ExampleWatcher_CloseTab() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()

	exampleCrash(ctx) // a crashed renderer answers nothing; the browser still closes its tab
	fmt.Println(w.CloseTab(ctx))
	_, err := w.Eval(ctx, `() => 1`)
	fmt.Println(err)
	// Output:
	// <nil>
	// watcher is closed
}

func ExampleWatcher_TargetID() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()
	fmt.Println(w.TargetID() == chromedp.FromContext(ctx).Target.TargetID)
	// Output: true
}

// Do guards CDP calls other than an eval: here a mouse move, refused once
// the renderer has crashed.
func ExampleWatcher_Do() {
	w, ctx, done := exampleLoaded(`<button>Pay</button>`, nil)
	defer done()

	move := func(ctx context.Context) error {
		return chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, 20, 20))
	}
	fmt.Println(w.Do(ctx, move))

	exampleCrash(ctx)
	untilBlocked(ctx, w)
	fmt.Println(errors.Is(w.Do(ctx, move), chromedp015guard.ErrTabCrashed))
	// Output:
	// <nil>
	// true
}

func ExampleWatcher_DoBrowserSide() {
	w, ctx, done := exampleLoaded(`<title>Report</title>`, nil)
	defer done()

	// A crashed tab refuses Do, but the browser side still answers.
	exampleCrash(ctx)
	untilBlocked(ctx, w)
	err := w.DoBrowserSide(ctx, func(ctx context.Context) error {
		return chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
			info, err := target.GetTargetInfo().WithTargetID(w.TargetID()).Do(ctx)
			if err == nil {
				fmt.Println(info.Type, info.Title)
			}
			return err
		}))
	})
	fmt.Println(err)
	// Output:
	// page Report
	// <nil>
}

func ExampleWatcher_Cookies() {
	w, ctx, done := exampleLoaded(`<title>Shop</title><script>document.cookie = "cart=3"</script>`, nil)
	defer done()

	// The browser process keeps the cookies: they answer on a crashed tab.
	exampleCrash(ctx)
	cookies, err := w.Cookies(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cookies {
		if c.Name == "cart" { // the browser's other sites' cookies are there too
			fmt.Println(c.Name, c.Value)
		}
	}
	// Output: cart 3
}

func ExampleWatcher_Navigate() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, &chromedp015guard.Options{URLs: &chromedp015guard.URLPolicy{}})
	defer done()
	home := w.State().URL

	// A URL the policy refuses loads nothing: the page stays.
	err := w.Navigate(ctx, "file:///etc/passwd")
	fmt.Println(errors.Is(err, chromedp015guard.ErrURLBlocked), err)

	// Navigate returns once the new page has committed: the next eval
	// works at once, with no load loop of the caller's own.
	fmt.Println(w.Navigate(ctx, home+"?again"))
	res, err := w.Eval(ctx, `() => location.search`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output:
	// true URL not allowed: file:///etc/passwd: the file: scheme is not allowed
	// <nil>
	// "?again"
}

func ExampleWatcher_Wait() {
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, nil)
	defer done()

	go exampleCrash(ctx)
	// Wait wakes on each event of the tab; it never polls the renderer.
	s, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Crashed })
	fmt.Println(s.Crashed, err)
	// Output: true <nil>
}

func ExampleWatcher_Screenshot() {
	w, ctx, done := exampleLoaded(`<title>Orders</title><p>3 open</p>`, nil)
	defer done()

	png, err := w.Screenshot(ctx, false, 100) // quality 100: PNG
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.HasPrefix(png, []byte("\x89PNG")))

	// A crashed tab is refused at once, not waited on.
	exampleCrash(ctx)
	untilBlocked(ctx, w)
	_, err = w.Screenshot(ctx, false, 100)
	fmt.Println(errors.Is(err, chromedp015guard.ErrTabCrashed))
	// Output:
	// true
	// true
}

func ExampleWatcher_PDF() {
	w, ctx, done := exampleLoaded(`<title>Invoice</title><p>Total: 12 EUR</p>`, nil)
	defer done()

	// A small document, into memory; nil asks for Chrome's defaults.
	pdf, err := w.PDF(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(pdf[:5]))

	// A crashed tab is refused at once, not waited on.
	exampleCrash(ctx)
	untilBlocked(ctx, w)
	_, err = w.PDF(ctx, page.PrintToPDF().WithLandscape(true))
	fmt.Println(errors.Is(err, chromedp015guard.ErrTabCrashed))
	// Output:
	// %PDF-
	// true
}

func ExampleWatcher_Frames() {
	w, _, done := exampleLoaded(`<title>outer</title><iframe srcdoc="<p>inner</p>"></iframe>`, nil)
	defer done()

	// From the events: no call to the page.
	for _, f := range w.Frames() {
		fmt.Println(f.URL, f.ParentID == string(w.TargetID()), f.Loading, f.Refusal)
	}
	// Output: about:srcdoc true false <nil>
}

func ExampleWatcher_Console() {
	w, _, done := exampleLoaded(`<title>Cart</title><script>
		console.log("cart loaded:", 3, "items");
		console.warn("coupon %s expired", "SPRING");
		throw new Error("checkout widget failed");
	</script>`, nil)
	defer done()

	for _, m := range w.Console().Messages {
		first, _, _ := strings.Cut(m.Text, "\n") // an exception's stack follows
		fmt.Printf("%s, line %d: %s\n", m.Type, m.Line, first)
	}
	// Output:
	// log, line 2: cart loaded: 3 items
	// warning, line 3: coupon SPRING expired
	// exception, line 4: Uncaught Error: checkout widget failed
}

func ExampleWatcher_ReadDOM() {
	w, ctx, done := exampleLoaded(`<ul>`+strings.Repeat(`<li>héllo wörld</li>`, 10)+`</ul>`, nil)
	defer done()

	// Windows of 64 bytes from one snapshot: they join up exactly.
	var b strings.Builder
	opts := chromedp015guard.DOMOptions{MaxBytes: 64, Selector: "ul"}
	windows := 0
	for {
		win, err := w.ReadDOM(ctx, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		b.WriteString(win.Content)
		windows++
		if win.NextOffset == 0 {
			break
		}
		opts.Snapshot, opts.Offset = win.Snapshot, win.NextOffset
	}
	fmt.Println(windows, strings.Count(b.String(), "<li>héllo wörld</li>"))

	_, err := w.ReadDOM(ctx, chromedp015guard.DOMOptions{Selector: "table"})
	fmt.Println(err)
	// Output:
	// 4 10
	// selector matches nothing: "table"
}

func ExampleDOMWindow() {
	w, ctx, done := exampleLoaded(`<ul>`+strings.Repeat(`<li>order</li>`, 20)+`</ul>`, nil)
	defer done()

	first, err := w.ReadDOM(ctx, chromedp015guard.DOMOptions{Selector: "ul", MaxBytes: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first.Offset, first.NextOffset, first.Size, first.Changed)

	// The page changes between two windows: the next one still comes from
	// the snapshot, and says the page moved on.
	if _, err := w.Eval(ctx, `() => document.querySelector("ul").remove()`); err != nil {
		fmt.Println(err)
		return
	}
	next, err := w.ReadDOM(ctx, chromedp015guard.DOMOptions{Snapshot: first.Snapshot, Offset: first.NextOffset, MaxBytes: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(next.Offset, next.NextOffset, next.Size, next.Changed)
	fmt.Println(strings.Count(first.Content+next.Content, "<li>order</li>"))
	// Output:
	// 0 200 289 false
	// 200 0 289 true
	// 20
}

func ExampleDOMWindow_Notice() {
	win := chromedp015guard.DOMWindow{Content: "<html><head>", Snapshot: "s1", Offset: 0, NextOffset: 12, Size: 4096}
	fmt.Println(win.Notice(12))
	// Output: <!-- bytes 0-12 of 4096 in snapshot s1 (cut at 12); read on from offset 12 of snapshot s1 -->
}

func ExampleDOMOptions() {
	w, ctx, done := exampleLoaded(`<title>Orders</title><table><tr><td>Order 7</td><td>shipped</td></tr></table>`, nil)
	defer done()

	// The visible text of the first table, 2,000 bytes at a time.
	win, err := w.ReadDOM(ctx, chromedp015guard.DOMOptions{Selector: "table", Text: true, MaxBytes: 2000})
	fmt.Printf("%q %v\n", win.Content, err)
	// Output: "Order 7\tshipped" <nil>
}

func ExampleDefaultNotice() {
	fmt.Println(chromedp015guard.DefaultNotice(102397, 5242880, 102400))
	// Output: <!-- truncated: showing 102397 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->
}

func ExampleNotice() {
	// A notice in the terms of the program's own users, here an MCP tool
	// whose cap is called max_bytes.
	var notice chromedp015guard.Notice = func(shown, size, maxBytes int) string {
		return fmt.Sprintf("<!-- %d of %d bytes; call get_tab_dom with a larger max_bytes (now %d) -->", shown, size, maxBytes)
	}
	w, ctx, done := exampleLoaded(`<p>héllo</p>`, &chromedp015guard.Options{DOMNotice: notice})
	defer done()

	d, err := w.DOM(ctx, 30)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.HTML)
	// Output:
	// <html><head></head><body><p>h
	// <!-- 29 of 52 bytes; call get_tab_dom with a larger max_bytes (now 30) -->
}

func ExampleOptions() {
	// Keep only the level and message, so the output is the same every run.
	only := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.LevelKey || a.Key == slog.MessageKey {
			return a
		}
		return slog.Attr{}
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: only}))
	w, ctx, done := exampleLoaded(`<title>Orders</title>`, &chromedp015guard.Options{EvalTimeout: 200 * time.Millisecond, Logger: log})
	defer done()

	// No deadline of the call's own: EvalTimeout bounds it.
	_, err := w.Eval(context.WithoutCancel(ctx), `() => new Promise(() => {})`)
	fmt.Println(errors.Is(err, chromedp015guard.ErrEvalTimeout), ctx.Err())
	// Output:
	// level=WARN msg="tabguard: eval timed out"
	// true <nil>
}

func ExampleGuard() {
	w, ctx, done := exampleLoaded(`<title>Orders</title><button onclick="alert('sure?')">Delete</button>`, nil)
	defer done()

	// chromedp's own actions, under the watcher's guard: the click opens
	// an alert, which holds the page, and the wait that follows is cut
	// short instead of waiting for an element that cannot come.
	err := chromedp.Run(ctx, chromedp015guard.Guard(w, chromedp.Tasks{
		chromedp.Click("button", chromedp.ByQuery),
		chromedp.WaitVisible("#done", chromedp.ByQuery),
	}))
	fmt.Println(errors.Is(err, chromedp015guard.ErrDialogOpen))
	fmt.Println(w.HandleDialog(ctx, true, ""))
	var title string
	err = chromedp.Run(ctx, chromedp015guard.Guard(w, chromedp.Title(&title)))
	fmt.Println(title, err)
	// Output:
	// true
	// <nil>
	// Orders <nil>
}
