package chromedp015guard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// exampleBrowserTab opens a window tab of the tests' browser, loads html's
// page in it with chromedp and starts a BrowserWatcher of the browser; ctx,
// the tab's, ends in 30 s, and done ends the BrowserWatcher, the tab and
// the page's server. A failure panics.
func exampleBrowserTab(html string, opts *chromedp015guard.Options) (bw *chromedp015guard.BrowserWatcher, ctx context.Context, done func()) {
	srv := exampleServer(html)
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		srv.Close()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	err = chromedp.Run(ctx, chromedp.Navigate(srv.URL))
	if err == nil {
		bw, err = chromedp015guard.WatchBrowser(tab, opts)
	}
	done = func() {
		if bw != nil {
			_ = bw.Close()
		}
		cancel()
		closeTab()
		srv.Close()
	}
	if err != nil {
		done()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	return bw, ctx, done
}

// A program that works on several tabs of one browser keeps one
// BrowserWatcher: a Watcher for each tab it works on, and a list of every
// tab, watched or not, from the browser's events alone.
func ExampleBrowserWatcher() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()
	other, closeOther, err := exampleWindowTab() // a tab the program does not work on
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeOther()

	w, err := bw.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ti := range bw.Tabs() {
		switch ti.TargetID {
		case w.TargetID():
			fmt.Println("the tab it works on:", ti.Title, ti.Watched)
		case chromedp.FromContext(other).Target.TargetID:
			fmt.Println("another tab:", ti.Watched)
		}
	}
	res, err := w.Eval(ctx, `() => document.title`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output:
	// the tab it works on: Orders true
	// another tab: false
	// "Orders"
}

func ExampleWatchBrowser() {
	srv := exampleServer(`<title>Orders</title>`)
	defer srv.Close()
	tab1, close1, err := exampleWindowTab() // a program's chromedp.NewContext
	if err != nil {
		fmt.Println(err)
		return
	}
	defer close1()
	tab2, close2, err := exampleWindowTab()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer close2()
	ctx, cancel := context.WithTimeout(tab1, 30*time.Second)
	defer cancel()

	// One listener on the browser's events for every watched tab. Any
	// context of the browser will do: here, a tab's.
	bw, err := chromedp015guard.WatchBrowser(tab1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	w1, err := bw.Watch(tab1)
	if err != nil {
		fmt.Println(err)
		return
	}
	w2, err := bw.Watch(tab2)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w1.Navigate(ctx, srv.URL); err != nil {
		fmt.Println(err)
		return
	}

	exampleCrash(ctx)
	_, err = w1.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Crashed })
	fmt.Println(err, errors.Is(w1.Blocked(ctx), chromedp015guard.ErrTabCrashed), w2.Blocked(ctx))
	// Output: <nil> true <nil>
}

func ExampleBrowserWatcher_Watch() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, &chromedp015guard.Options{EvalTimeout: 2 * time.Second})
	defer done()

	w, err := bw.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close() // done with this tab; bw goes on
	res, err := w.Eval(ctx, `() => document.title`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output: "Orders"
}

func ExampleBrowserWatcher_Tabs() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	w, err := bw.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	exampleCrash(ctx)
	if _, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Crashed }); err != nil {
		fmt.Println(err)
		return
	}
	// Tabs asks no renderer: a crashed or hung tab cannot hold it up.
	for _, ti := range bw.Tabs() {
		if ti.TargetID == w.TargetID() {
			fmt.Println(ti.Title, ti.Watched, errors.Is(ti.Refusal, chromedp015guard.ErrTabCrashed))
		}
	}
	// Output: Orders true true
}

func ExampleBrowserWatcher_Changes() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		fmt.Println(err)
		return
	}
	id := chromedp.FromContext(tab).Target.TargetID
	closeTab() // chromedp closes the tab of a context it cancels
	for {
		select {
		case c, ok := <-bw.Changes():
			if !ok {
				return // the BrowserWatcher is closed
			}
			if c.Tab.TargetID != id {
				continue
			}
			fmt.Println(c.Kind)
			if c.Kind == chromedp015guard.TabClosed {
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

func ExampleBrowserWatcher_Close() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	w, err := bw.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Close ends every Watcher it handed out; the tabs stay open.
	fmt.Println(bw.Close())
	_, err = w.Eval(ctx, `() => 1`)
	fmt.Println(errors.Is(err, chromedp015guard.ErrWatcherClosed))
	var title string
	err = chromedp.Run(ctx, chromedp.Title(&title))
	fmt.Println(title, err)
	// Output:
	// <nil>
	// true
	// Orders <nil>
}

func ExampleTabChange() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()
	w, err := bw.Watch(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Eval(ctx, `() => { window.open("/help") }`); err != nil {
		fmt.Println(err)
		return
	}
	for {
		select {
		case c := <-bw.Changes():
			if c.Kind != chromedp015guard.TabOpened || c.Tab.OpenerID != w.TargetID() {
				continue
			}
			// Attach to the popup, as the program's own tab: cancelling
			// the context closes it.
			popup, closePopup := chromedp.NewContext(ctx, chromedp.WithTargetID(c.Tab.TargetID))
			defer closePopup()
			if err := chromedp.Run(popup); err != nil {
				fmt.Println(err)
				return
			}
			// Missed counts changes dropped before this one because the
			// reader fell behind: read Tabs to catch up.
			fmt.Println(c.Kind, c.Tab.Watched, c.Missed)
			return
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	// Output: TabOpened false 0
}

func ExampleTabChangeKind() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeTab()
	w, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}

	exampleCrash(tab)
	for {
		select {
		case c := <-bw.Changes():
			if c.Tab.TargetID != w.TargetID() {
				continue
			}
			switch c.Kind {
			case chromedp015guard.TabOpened:
				fmt.Println("opened")
			case chromedp015guard.TabCrashed:
				fmt.Println("crashed: close it")
				if err := w.CloseTab(ctx); err != nil {
					fmt.Println(err)
					return
				}
			case chromedp015guard.TabClosed:
				fmt.Println("closed")
				return
			}
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	// Output:
	// opened
	// crashed: close it
	// closed
}

func ExampleTabChangeKind_String() {
	fmt.Println(chromedp015guard.TabOpened, chromedp015guard.TabCrashed, chromedp015guard.TabClosed, chromedp015guard.TabChangeKind(9))
	// Output: TabOpened TabCrashed TabClosed TabChangeKind(9)
}

func ExampleTabInfo() {
	bw, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	// A tab no Watcher follows holds what browser-wide events tell: here,
	// a crash.
	id := chromedp.FromContext(ctx).Target.TargetID
	exampleCrash(ctx)
	for {
		select {
		case c := <-bw.Changes():
			if c.Kind != chromedp015guard.TabCrashed || c.Tab.TargetID != id {
				continue
			}
			for _, ti := range bw.Tabs() {
				if ti.TargetID == id {
					fmt.Println(ti.Title, ti.Watched, ti.State.Crashed, ti.Refusal)
				}
			}
			return
		case <-ctx.Done():
			fmt.Println(ctx.Err())
			return
		}
	}
	// Output: Orders false true tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)
}
