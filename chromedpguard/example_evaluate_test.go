package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

func ExampleEvaluate_expression() {
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
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		fmt.Println(err)
		return
	}

	// The expression a program gave chromedp.Evaluate, guarded.
	ready, err := chromedp.Run(ctx, chromedpguard.Evaluate[bool](w, `document.readyState === "complete"`))
	fmt.Println(ready, err)
	// An expression may await; chromedp.Evaluate's may not.
	text, err := chromedp.Run(ctx, chromedpguard.Evaluate[string](w, `await Promise.resolve(document.querySelector("p").textContent)`))
	fmt.Println(text, err)
	// Output:
	// true <nil>
	// 3 open <nil>
}

func ExampleCallFunction() {
	tab, url, done := exampleTab(`<script>function total(a, b) { return a + b }</script>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		fmt.Println(err)
		return
	}

	// The page's own function, by name: Evaluate would answer the
	// function itself, the value of the expression.
	sum, err := chromedp.Run(ctx, chromedpguard.CallFunction[int](w, `window.total`, 40, 2))
	fmt.Println(sum, err)
	// Output: 42 <nil>
}

func ExampleFromContext() {
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
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		fmt.Println(err)
		return
	}

	// An action written apart from the code that made the watcher: it
	// finds the watcher in the context the guard gives it.
	var committed chromedp.Action[bool] = func(ctx context.Context, _ *chromedp.Target) (bool, error) {
		w, ok := chromedpguard.FromContext(ctx)
		if !ok {
			return false, errors.New("not run under a guard")
		}
		return w.State().Committed, nil
	}
	fmt.Println(chromedp.Run(ctx, chromedpguard.Guard(w, committed)))
	_, err = chromedp.Run(ctx, committed)
	fmt.Println(err)
	// Output:
	// true <nil>
	// not run under a guard
}
