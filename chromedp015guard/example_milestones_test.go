package chromedp015guard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedp015guard"
)

func ExampleTabState_Reached() {
	// A page and a tab of the tests' browser, which stands in for the one
	// a program opens with chromedp.NewContext on its own allocator.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Orders</title><p>3 open</p>`)
	}))
	defer srv.Close()
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeTab()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedp015guard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// Navigate returns at the commit. A program that listened for Chrome's
	// firstMeaningfulPaint lifecycle event waits for the milestone instead:
	// the watcher keeps the milestones of the tab's current document.
	if err := w.Navigate(ctx, srv.URL); err != nil {
		fmt.Println(err)
		return
	}
	s, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Reached(chromedp015guard.FirstMeaningfulPaint) })
	fmt.Println(s.Reached(chromedp015guard.DOMContentLoaded|chromedp015guard.FirstContentfulPaint), err)
	res, err := w.Eval(ctx, `() => document.querySelector("p").textContent`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value), err)
	// Output:
	// true <nil>
	// "3 open" <nil>
}

// exampleWindowTab opens a tab of the tests' browser in a window of its
// own: a tab that another tab of its window hides paints nothing.
func exampleWindowTab() (context.Context, context.CancelFunc, error) {
	ctx, cancel := context.WithTimeout(sharedBrowser, 10*time.Second)
	defer cancel()
	var id target.ID
	err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		id, err = target.CreateTarget("about:blank").WithNewWindow(true).Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
		return err
	}))
	if err != nil {
		return nil, nil, err
	}
	tab, closeTab := chromedp.NewContext(sharedBrowser, chromedp.WithTargetID(id))
	if err := chromedp.Run(tab); err != nil {
		closeTab()
		return nil, nil, err
	}
	return tab, closeTab, nil
}
