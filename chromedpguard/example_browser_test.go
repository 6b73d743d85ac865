package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

// exampleBrowserTab opens an example tab of html at url, loaded by
// chromedp, and a BrowserWatcher of its browser; ctx ends in 30 s, and
// done ends the BrowserWatcher, the tab and its server. A failure panics.
func exampleBrowserTab(html string, opts *chromedpguard.Options) (bw *chromedpguard.BrowserWatcher, tab context.Context, url string, ctx context.Context, done func()) {
	tab, url, closeTab := exampleTab(html)
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	err := chromedp.Do(ctx, chromedp.Navigate(url))
	if err == nil {
		bw, err = chromedpguard.WatchBrowser(tab, opts)
	}
	done = func() {
		if bw != nil {
			_ = bw.Close()
		}
		cancel()
		closeTab()
	}
	if err != nil {
		done()
		panic(fmt.Errorf("open example tab: %w", err))
	}
	return bw, tab, url, ctx, done
}

// A program that works on several tabs of one browser keeps one
// BrowserWatcher: a Watcher for each tab it works on, and a list of every
// tab, watched or not, from the browser's events alone.
func ExampleBrowserWatcher() {
	bw, tab, url, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	w, err := bw.Open(ctx, url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.CloseTab(ctx)
	// Open returns at the commit; the title is there once the page loaded.
	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}
	for _, ti := range bw.Tabs() {
		switch ti.TargetID {
		case chromedp.FromContext(tab).Target.TargetID:
			fmt.Println("the tab the program had:", ti.Watched)
		case w.TargetID():
			fmt.Println("the tab it opened:", ti.Watched)
		}
	}
	// The Watcher's Context runs chromedp's actions on its tab.
	fmt.Println(chromedp.Run(w.Context(), chromedpguard.Evaluate[string](w, `document.title`)))
	// Output:
	// the tab the program had: false
	// the tab it opened: true
	// Orders <nil>
}

func ExampleWatchBrowser() {
	tab, url, done := exampleTab(`<title>Orders</title>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()

	// One listener on the browser's events for every watched tab. Any
	// context of the browser will do: here, a tab's.
	bw, err := chromedpguard.WatchBrowser(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bw.Close()
	w1, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := w1.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}
	w2, err := bw.Open(ctx, url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w2.CloseTab(ctx)

	exampleCrash(w1.Context())
	_, err = w1.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Crashed })
	fmt.Println(err, errors.Is(w1.Blocked(ctx), chromedpguard.ErrTabCrashed), w2.Blocked(ctx))
	// Output: <nil> true <nil>
}

func ExampleBrowserWatcher_Watch() {
	bw, tab, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, &chromedpguard.Options{EvalTimeout: 2 * time.Second})
	defer done()

	w, err := bw.Watch(tab)
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

func ExampleBrowserWatcher_Open() {
	bw, _, url, ctx, done := exampleBrowserTab(`<title>Orders</title>`, &chromedpguard.Options{URLs: &chromedpguard.URLPolicy{}})
	defer done()

	// An http URL opens; a file: URL does not, and opens no tab.
	w, err := bw.Open(ctx, url)
	fmt.Println(err)
	_, err = bw.Open(ctx, "file:///etc/passwd")
	fmt.Println(errors.Is(err, chromedpguard.ErrURLBlocked), err)

	// CloseTab closes it from the browser side, whatever its renderer does.
	fmt.Println(w.CloseTab(ctx))
	// Output:
	// <nil>
	// true URL not allowed: file:///etc/passwd: the file: scheme is not allowed
	// <nil>
}

func ExampleBrowserWatcher_Tabs() {
	bw, tab, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	w, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}
	exampleCrash(tab)
	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Crashed }); err != nil {
		fmt.Println(err)
		return
	}
	// Tabs asks no renderer: a crashed or hung tab cannot hold it up.
	for _, ti := range bw.Tabs() {
		if ti.TargetID == w.TargetID() {
			fmt.Println(ti.Title, ti.Watched, errors.Is(ti.Refusal, chromedpguard.ErrTabCrashed))
		}
	}
	// Output: Orders true true
}

func ExampleBrowserWatcher_Changes() {
	bw, _, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

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
			if c.Kind == chromedpguard.TabClosed {
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
	bw, tab, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	w, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Close ends every Watcher it handed out; the tabs stay open.
	fmt.Println(bw.Close())
	_, err = w.Eval(ctx, `() => 1`)
	fmt.Println(errors.Is(err, chromedpguard.ErrWatcherClosed))
	fmt.Println(chromedp.Run(ctx, chromedp.Title()))
	// Output:
	// <nil>
	// true
	// Orders <nil>
}

// nextTab returns the first tab Changes reports opened by opener.
func nextTab(ctx context.Context, bw *chromedpguard.BrowserWatcher, opener target.ID) (chromedpguard.TabChange, error) {
	for {
		select {
		case c := <-bw.Changes():
			if c.Kind == chromedpguard.TabOpened && c.Tab.OpenerID == opener {
				return c, nil
			}
		case <-ctx.Done():
			return chromedpguard.TabChange{}, ctx.Err()
		}
	}
}

func ExampleBrowserWatcher_WatchTarget() {
	bw, tab, url, ctx, done := exampleBrowserTab(`<title>Orders</title><a href="/popup" target="_blank">more</a>`, nil)
	defer done()
	w, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Click(ctx, "a"); err != nil {
		fmt.Println(err)
		return
	}

	// A tab the program did not open, such as a popup, is news on
	// Changes and in Tabs: watch it.
	c, err := nextTab(ctx, bw, w.TargetID())
	if err != nil {
		fmt.Println(err)
		return
	}
	pw, err := bw.WatchTarget(ctx, c.Tab.TargetID)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pw.CloseTab(ctx)
	s, err := pw.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	fmt.Println(s.URL == url+"/popup", err)
	// Output: true <nil>
}

func ExampleTabChange() {
	bw, tab, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()
	w, err := bw.Watch(tab)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Eval(ctx, `() => { window.open("/help") }`); err != nil {
		fmt.Println(err)
		return
	}
	c, err := nextTab(ctx, bw, w.TargetID())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: c.Tab.TargetID})
	// Missed counts changes dropped before this one because the reader
	// fell behind: read Tabs to catch up.
	fmt.Println(c.Kind, c.Tab.OpenerID == w.TargetID(), c.Tab.Watched, c.Missed)
	// Output: TabOpened true false 0
}

func ExampleTabChangeKind() {
	bw, _, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	w, err := bw.Open(ctx, "about:blank")
	if err != nil {
		fmt.Println(err)
		return
	}
	exampleCrash(w.Context())
	for {
		select {
		case c := <-bw.Changes():
			if c.Tab.TargetID != w.TargetID() {
				continue
			}
			switch c.Kind {
			case chromedpguard.TabOpened:
				fmt.Println("opened")
			case chromedpguard.TabCrashed:
				fmt.Println("crashed: close it")
				if err := w.CloseTab(ctx); err != nil {
					fmt.Println(err)
					return
				}
			case chromedpguard.TabClosed:
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
	fmt.Println(chromedpguard.TabOpened, chromedpguard.TabCrashed, chromedpguard.TabClosed, chromedpguard.TabChangeKind(9))
	// Output: TabOpened TabCrashed TabClosed TabChangeKind(9)
}

func ExampleTabInfo() {
	bw, tab, _, ctx, done := exampleBrowserTab(`<title>Orders</title>`, nil)
	defer done()

	// A tab no Watcher follows holds what browser-wide events tell: here,
	// a crash.
	exampleCrash(tab)
	for {
		select {
		case c := <-bw.Changes():
			if c.Kind != chromedpguard.TabCrashed || c.Tab.TargetID != chromedp.FromContext(tab).Target.TargetID {
				continue
			}
			for _, ti := range bw.Tabs() {
				if ti.TargetID == c.Tab.TargetID {
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
