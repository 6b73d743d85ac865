package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

// A service guards its whole task list, the load and the print, under one
// limit; the timeout says which step never finished.
func ExampleGuardSteps() {
	tab, url, done := exampleTab(`<title>Invoice</title><p>Total: 12 EUR</p>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedpguard.Watch(tab, &chromedpguard.Options{EvalTimeout: 2 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()

	var total string
	err = chromedp.Do(ctx, chromedpguard.GuardSteps(w,
		chromedp.Navigate(url),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) (err error) {
			total, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("p")))
			return err
		}),
		chromedp.WaitVisible(chromedp.CSS("#signature")), // never comes
	))
	fmt.Println(total)
	var te *chromedpguard.TimeoutError
	if errors.As(err, &te) {
		fmt.Println(te.Step)
	}
	// Output:
	// Total: 12 EUR
	// action 3 of 3, chromedp.QueryAfter
}
