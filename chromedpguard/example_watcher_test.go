package chromedpguard_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

// exampleWatch opens an example tab of html, watches it with opts and
// waits for its page to load; ctx ends in 30 s, and done ends the
// watcher, the tab and its server. A failure panics: an example has no
// *testing.T to fail.
func exampleWatch(html string, opts *chromedpguard.Options) (w *chromedpguard.Watcher, ctx context.Context, done func()) {
	tab, url, closeTab := exampleTab(html)
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	w, err := chromedpguard.Watch(tab, opts)
	if err == nil {
		err = w.Navigate(ctx, url)
	}
	if err == nil {
		_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	}
	done = func() {
		if w != nil {
			_ = w.Close()
		}
		cancel()
		closeTab()
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
	_, _ = chromedp.Call(ctx, page.Crash, cdp.Empty{}) // no reply is the expected outcome
}

// exampleDeadURL returns an http URL on 127.0.0.1 at a port nothing
// listens on.
func exampleDeadURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String() + "/"
}

func ExampleWatcher() {
	w, ctx, done := exampleWatch(`<title>Orders</title>`, &chromedpguard.Options{EvalTimeout: 30 * time.Second})
	defer done()

	// The renderer dies while an eval waits on a 20 s promise. Chrome
	// would hold the call until the tab is navigated again; the watcher
	// fails it as soon as the crash event arrives.
	crashed := make(chan struct{})
	go func() {
		defer close(crashed)
		time.Sleep(200 * time.Millisecond)
		exampleCrash(w.Context())
	}()
	_, err := w.Eval(ctx, `() => new Promise(r => setTimeout(r, 20000))`)
	<-crashed
	fmt.Println(errors.Is(err, chromedpguard.ErrTabCrashed), ctx.Err())
	// Output: true <nil>
}

func ExampleWatcher_Eval() {
	w, ctx, done := exampleWatch(`<ul><li>ok</li><li>late</li><li>ok</li></ul>`, &chromedpguard.Options{EvalTimeout: 2 * time.Second})
	defer done()

	res, err := w.Eval(ctx, `(sel) => document.querySelectorAll(sel).length`, "li")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))

	// An exception is chromedp's own error, as chromedp.Evaluate gives.
	_, err = w.Eval(ctx, `() => { throw new Error("no orders") }`)
	var ee *chromedp.ExceptionError
	fmt.Println(errors.As(err, &ee))
	// Output:
	// 3
	// true
}

func ExampleWatcher_DOM() {
	w, ctx, done := exampleWatch(`<p>héllo wörld</p>`, nil)
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
	w, ctx, done := exampleWatch(`<title>Orders</title><p>3 open</p>`, nil)
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
	w, ctx, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()
	fmt.Println(w.Blocked(ctx))

	exampleCrash(w.Context())
	// Chrome reports the crash by an event within milliseconds. Blocked
	// reads what the events left and sends nothing to the tab.
	for w.Blocked(ctx) == nil && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(errors.Is(w.Blocked(ctx), chromedpguard.ErrTabCrashed))
	// Output:
	// <nil>
	// true
}

func ExampleWatcher_State() {
	w, ctx, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()

	// chromedp's own navigation, not the watcher's: the watcher learns of
	// the failed load from the tab's events.
	if err := chromedp.Do(ctx, chromedp.Navigate(exampleDeadURL())); err == nil {
		fmt.Println("a dead URL loaded")
		return
	}
	for w.State().LoadError == "" && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(w.State().LoadError)
	fmt.Println(errors.Is(w.Blocked(ctx), chromedpguard.ErrNoDocument))
	// Output:
	// net::ERR_CONNECTION_REFUSED
	// true
}

func ExampleWatcher_Close() {
	w, ctx, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()

	fmt.Println(w.Close())
	_, err := w.Eval(ctx, `() => document.title`)
	fmt.Println(err)
	// The tab stays open: chromedp still reaches it.
	fmt.Println(chromedp.Run(ctx, chromedp.Title()))
	// Output:
	// <nil>
	// watcher is closed
	// Orders <nil>
}

func ExampleWatcher_CloseTab() {
	w, ctx, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()

	exampleCrash(w.Context()) // a crashed renderer answers nothing; the browser still closes its tab
	fmt.Println(w.CloseTab(ctx))
	_, err := w.Eval(ctx, `() => 1`)
	fmt.Println(err)
	// Output:
	// <nil>
	// watcher is closed
}

func ExampleWatcher_TargetID() {
	w, _, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()
	fmt.Println(w.TargetID() == chromedp.FromContext(w.Context()).Target.TargetID)
	// Output: true
}

func ExampleWatcher_Context() {
	w, _, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()

	// The tab's chromedp context: chromedp's actions run on the watched tab.
	fmt.Println(chromedp.Run(w.Context(), chromedp.Title()))
	// Output: Orders <nil>
}

// Do guards CDP calls other than an eval: here a mouse move, refused once
// the renderer has crashed.
func ExampleWatcher_Do() {
	w, ctx, done := exampleWatch(`<button>Pay</button>`, nil)
	defer done()

	move := func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 20, 20))
	}
	fmt.Println(w.Do(ctx, move))

	exampleCrash(w.Context())
	for w.Blocked(ctx) == nil && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(errors.Is(w.Do(ctx, move), chromedpguard.ErrTabCrashed))
	// Output:
	// <nil>
	// true
}

func ExampleWatcher_DoBrowserSide() {
	w, ctx, done := exampleWatch(`<title>Report</title>`, nil)
	defer done()

	// A crashed tab refuses Do, but the browser side still answers.
	exampleCrash(w.Context())
	for w.Blocked(ctx) == nil && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	err := w.DoBrowserSide(ctx, func(ctx context.Context) error {
		info, err := chromedp.Call(ctx, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: w.TargetID()})
		if err == nil {
			fmt.Println(info.TargetInfo.Type, info.TargetInfo.Title)
		}
		return err
	})
	fmt.Println(err)
	// Output:
	// page Report
	// <nil>
}

func ExampleWatcher_Cookies() {
	w, ctx, done := exampleWatch(`<title>Shop</title><script>document.cookie = "cart=3"</script>`, nil)
	defer done()

	// The browser process keeps the cookies: they answer on a crashed tab.
	exampleCrash(w.Context())
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
	w, ctx, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()
	home := w.State().URL

	err := w.Navigate(ctx, exampleDeadURL())
	fmt.Println(errors.Is(err, chromedpguard.ErrNoDocument), strings.Contains(err.Error(), "net::ERR_CONNECTION_REFUSED"))

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
	// true true
	// <nil>
	// "?again"
}

func ExampleWatcher_Wait() {
	w, ctx, done := exampleWatch(`<title>Orders</title>`, nil)
	defer done()

	go exampleCrash(w.Context())
	// Wait wakes on each event of the tab; it never polls the renderer.
	s, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Crashed })
	fmt.Println(s.Crashed, err)
	// Output: true <nil>
}

func ExampleWatcher_Screenshot() {
	w, ctx, done := exampleWatch(`<title>Orders</title><p>3 open</p>`, nil)
	defer done()

	png, err := w.Screenshot(ctx, false, 100) // quality 100: PNG
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(bytes.HasPrefix(png, []byte("\x89PNG")))

	// A crashed tab is refused at once, not waited on.
	exampleCrash(w.Context())
	for w.Blocked(ctx) == nil && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	_, err = w.Screenshot(ctx, false, 100)
	fmt.Println(errors.Is(err, chromedpguard.ErrTabCrashed))
	// Output:
	// true
	// true
}

func ExampleWatcher_PDF() {
	w, ctx, done := exampleWatch(`<title>Invoice</title><p>Total: 12 EUR</p>`, nil)
	defer done()

	// A small document, into memory; nil asks for Chrome's defaults.
	pdf, err := w.PDF(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(pdf[:5]))

	// A crashed tab is refused at once, not waited on.
	exampleCrash(w.Context())
	for w.Blocked(ctx) == nil && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	landscape := true
	_, err = w.PDF(ctx, &page.PrintToPDFParams{Landscape: &landscape})
	fmt.Println(errors.Is(err, chromedpguard.ErrTabCrashed))
	// Output:
	// %PDF-
	// true
}

func ExampleWatcher_Frames() {
	w, _, done := exampleWatch(`<title>outer</title><iframe srcdoc="<p>inner</p>"></iframe>`, nil)
	defer done()

	// From the events: no call to the page.
	for _, f := range w.Frames() {
		fmt.Println(f.URL, f.ParentID == string(w.TargetID()), f.Loading, f.Refusal)
	}
	// Output: about:srcdoc true false <nil>
}

func ExampleWatcher_Console() {
	w, _, done := exampleWatch(`<title>Cart</title><script>
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
	w, ctx, done := exampleWatch(`<ul>`+strings.Repeat(`<li>héllo wörld</li>`, 10)+`</ul>`, nil)
	defer done()

	// Windows of 64 bytes from one snapshot: they join up exactly.
	var b strings.Builder
	opts := chromedpguard.DOMOptions{MaxBytes: 64, Selector: "ul"}
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

	_, err := w.ReadDOM(ctx, chromedpguard.DOMOptions{Selector: "table"})
	fmt.Println(err)
	// Output:
	// 4 10
	// selector matches nothing: "table"
}

func ExampleDOMWindow() {
	w, ctx, done := exampleWatch(`<ul>`+strings.Repeat(`<li>order</li>`, 20)+`</ul>`, nil)
	defer done()

	first, err := w.ReadDOM(ctx, chromedpguard.DOMOptions{Selector: "ul", MaxBytes: 200})
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
	next, err := w.ReadDOM(ctx, chromedpguard.DOMOptions{Snapshot: first.Snapshot, Offset: first.NextOffset, MaxBytes: 200})
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
	win := chromedpguard.DOMWindow{Content: "<html><head>", Snapshot: "s1", Offset: 0, NextOffset: 12, Size: 4096}
	fmt.Println(win.Notice(12))
	// Output: <!-- bytes 0-12 of 4096 in snapshot s1 (cut at 12); read on from offset 12 of snapshot s1 -->
}

func ExampleDOMOptions() {
	w, ctx, done := exampleWatch(`<title>Orders</title><table><tr><td>Order 7</td><td>shipped</td></tr></table>`, nil)
	defer done()

	// The visible text of the first table, 2,000 bytes at a time.
	win, err := w.ReadDOM(ctx, chromedpguard.DOMOptions{Selector: "table", Text: true, MaxBytes: 2000})
	fmt.Printf("%q %v\n", win.Content, err)
	// Output: "Order 7\tshipped" <nil>
}

func ExampleDefaultNotice() {
	fmt.Println(chromedpguard.DefaultNotice(102397, 5242880, 102400))
	// Output: <!-- truncated: showing 102397 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->
}

func ExampleNotice() {
	// A notice in the terms of the program's own users, here an MCP tool
	// whose cap is called max_bytes.
	var notice chromedpguard.Notice = func(shown, size, maxBytes int) string {
		return fmt.Sprintf("<!-- %d of %d bytes; call get_tab_dom with a larger max_bytes (now %d) -->", shown, size, maxBytes)
	}
	w, ctx, done := exampleWatch(`<p>héllo</p>`, &chromedpguard.Options{DOMNotice: notice})
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
	w, ctx, done := exampleWatch(`<title>Orders</title>`, &chromedpguard.Options{EvalTimeout: 200 * time.Millisecond, Logger: log})
	defer done()

	// No deadline of the call's own: EvalTimeout bounds it.
	_, err := w.Eval(w.Context(), `() => new Promise(() => {})`)
	fmt.Println(errors.Is(err, chromedpguard.ErrEvalTimeout), ctx.Err())
	// Output:
	// level=WARN msg="tabguard: eval timed out"
	// true <nil>
}

func ExampleGuard() {
	w, ctx, done := exampleWatch(`<title>Orders</title><button onclick="alert('sure?')">Delete</button>`, nil)
	defer done()

	// chromedp's own actions, under the watcher's guard: the click opens
	// an alert, which holds the page, and the wait that follows is cut
	// short instead of waiting for an element that cannot come.
	err := chromedp.Do(ctx, chromedpguard.Guard(w, chromedp.Steps(
		chromedp.Click(chromedp.CSS("button")),
		chromedp.WaitVisible(chromedp.CSS("#done")),
	)))
	fmt.Println(errors.Is(err, chromedpguard.ErrDialogOpen))
	fmt.Println(w.HandleDialog(ctx, true, ""))
	fmt.Println(chromedp.Run(ctx, chromedpguard.Guard(w, chromedp.Title())))
	// Output:
	// true
	// <nil>
	// Orders <nil>
}
