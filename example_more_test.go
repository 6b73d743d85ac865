package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

func ExampleWatcher_ReadDOM() {
	page, done := exampleTab(`<ul>` + strings.Repeat(`<li>héllo wörld</li>`, 10) + `</ul>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Windows of 64 bytes from one snapshot: they join up exactly.
	var b strings.Builder
	opts := tabguard.DOMOptions{MaxBytes: 64, Selector: "ul"}
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

	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{Selector: "table"})
	fmt.Println(err)
	// Output:
	// 4 10
	// selector matches nothing: "table"
}

func ExampleDOMWindow_Notice() {
	win := tabguard.DOMWindow{Content: "<html><head>", Snapshot: "s1", Offset: 0, NextOffset: 12, Size: 4096}
	fmt.Println(win.Notice(12))
	// Output: <!-- bytes 0-12 of 4096 in snapshot s1 (cut at 12); read on from offset 12 of snapshot s1 -->
}

func ExampleBrowserWatcher_Open() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), &tabguard.Options{URLs: &tabguard.URLPolicy{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// An http URL opens; a file: URL does not, and opens no tab.
	w, err := bw.Open(ctx, page.MustInfo().URL)
	fmt.Println(err)
	_, err = bw.Open(ctx, "file:///etc/passwd")
	fmt.Println(errors.Is(err, tabguard.ErrURLBlocked), err)

	// CloseTab closes it from the browser side, whatever its renderer does.
	fmt.Println(w.CloseTab(ctx))
	// Output:
	// <nil>
	// true URL not allowed: file:///etc/passwd: the file: scheme is not allowed
	// <nil>
}

func ExampleBrowserWatcher_WatchTarget() {
	page, done := exampleTab(`<a href="/popup" target="_blank">more</a>`)
	defer done()
	bw, err := tabguard.WatchBrowser(page.Browser(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// A tab the program did not open, such as a popup, is in Tabs: watch it.
	w, err := bw.WatchTarget(ctx, page.TargetID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.TargetID() == page.TargetID)
	// Output: true
}

func ExampleWatcher_CloseTab() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	crashTab(page) // a crashed renderer answers nothing; the browser still closes its tab
	fmt.Println(w.CloseTab(context.Background()))
	_, err = w.Eval(context.Background(), `() => 1`)
	fmt.Println(err)
	// Output:
	// <nil>
	// watcher is closed
}

func ExampleWatcher_TargetID() {
	page, done := exampleTab(`<title>Orders</title>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	fmt.Println(w.TargetID() == page.TargetID)
	// Output: true
}

func ExampleConnect() {
	browser, err := testbrowser.Launch() // stands in for a browser on another host, or a pool
	if err != nil {
		fmt.Println(err)
		return
	}
	defer browser.Close()
	// A browser's DevTools URL; a pool's carries its token (?token=...).
	wsURL, err := wsmeter.ActivePortURL(browser.Launcher.Get(flags.UserDataDir))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := tabguard.Connect(ctx, wsURL) // the whole handshake within ctx
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close() // ends a pool's session; without it, a drop is resumed
	bw, err := tabguard.WatchBrowser(b, &tabguard.Options{Heartbeat: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	w, err := bw.Open(ctx, "about:blank")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := w.Eval(ctx, `() => 6 * 7`)
	fmt.Println(res.Value.Int(), err)
	// Output: 42 <nil>
}

func ExampleURLPolicy_Check() {
	p := tabguard.URLPolicy{BlockedOrigins: []string{"169.254.169.254"}}
	fmt.Println(p.Check("https://example.com/"))
	fmt.Println(p.Check("http://169.254.169.254/latest/meta-data/"))
	fmt.Println(p.Check("javascript:alert(1)"))
	// Output:
	// <nil>
	// URL not allowed: http://169.254.169.254/latest/meta-data/: its origin http://169.254.169.254 is blocked
	// URL not allowed: javascript:alert(1): the javascript: scheme is not allowed
}

// A pool that takes its key in a header gets it on every request of the
// handshake.
func ExampleConnectWith() {
	browser, err := testbrowser.Launch() // stands in for a pool
	if err != nil {
		fmt.Println(err)
		return
	}
	defer browser.Close()
	wsURL, err := wsmeter.ActivePortURL(browser.Launcher.Get(flags.UserDataDir))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := tabguard.ConnectWith(ctx, wsURL, &tabguard.ConnectOptions{
		Header: http.Header{"Authorization": {"Bearer " + "the-pool's-key"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	res, err := proto.BrowserGetVersion{}.Call(b.Context(ctx))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(res.Product, "Chrome"))
	// Output: true
}

func ExampleDOMWindow() {
	page, done := exampleTab(`<ul>` + strings.Repeat(`<li>order</li>`, 20) + `</ul>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	first, err := w.ReadDOM(ctx, tabguard.DOMOptions{Selector: "ul", MaxBytes: 200})
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
	next, err := w.ReadDOM(ctx, tabguard.DOMOptions{Snapshot: first.Snapshot, Offset: first.NextOffset, MaxBytes: 200})
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
