package chromedpguard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tabguard/tabguard/chromedpguard"
)

func ExampleTabState_Reached() {
	tab, url, done := exampleTab(`<title>Orders</title><p>3 open</p>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	// Navigate returns at the commit. A program that listened for Chrome's
	// firstMeaningfulPaint lifecycle event waits for the milestone instead:
	// the watcher keeps the milestones of the tab's current document.
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}
	s, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Reached(chromedpguard.FirstMeaningfulPaint) })
	fmt.Println(s.Reached(chromedpguard.DOMContentLoaded|chromedpguard.FirstContentfulPaint), err)
	res, err := w.Eval(ctx, `() => document.querySelector("p").textContent`)
	fmt.Println(string(res.Value), err)
	// Output:
	// true <nil>
	// "3 open" <nil>
}
