package chromedp015guard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// exampleWatched opens a window tab of the tests' browser at html's page
// and watches it; done closes all.
func exampleWatched(html string) (ctx context.Context, w *chromedp015guard.Watcher, done func(), err error) {
	srv := exampleServer(html)
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	done = func() { cancel(); closeTab(); srv.Close() }
	if w, err = chromedp015guard.Watch(tab, nil); err != nil {
		done()
		return nil, nil, nil, err
	}
	done = func() { _ = w.Close(); cancel(); closeTab(); srv.Close() }
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL)); err != nil {
		done()
		return nil, nil, nil, err
	}
	return ctx, w, done, nil
}

func ExampleEvaluate() {
	ctx, w, done, err := exampleWatched(`<title>Orders</title><p>3 open</p>`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()

	// The expression a program gave chromedp.Evaluate, guarded; an
	// expression may await, where chromedp.Evaluate's may not; and a
	// function, called with args.
	var ready bool
	var text string
	var sum int
	err = chromedp.Run(ctx,
		chromedp015guard.Evaluate(w, `document.readyState === "complete"`, &ready),
		chromedp015guard.Evaluate(w, `await Promise.resolve(document.querySelector("p").textContent)`, &text),
		chromedp015guard.Evaluate(w, `(a, b) => a + b`, &sum, 40, 2),
	)
	fmt.Println(ready, text, sum, err)
	// Output: true 3 open 42 <nil>
}

func ExampleCallFunction() {
	ctx, w, done, err := exampleWatched(`<script>function total(a, b) { return a + b }</script>`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()

	// The page's own function, by name: Evaluate would answer the
	// function itself, the value of the expression.
	var sum int
	err = chromedp.Run(ctx, chromedp015guard.CallFunction(w, `window.total`, &sum, 40, 2))
	fmt.Println(sum, err)
	// Output: 42 <nil>
}

func ExampleFromContext() {
	ctx, w, done, err := exampleWatched(`<title>Orders</title>`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()

	// An action written apart from the code that made the watcher: it
	// finds the watcher in the context the guard gives it.
	var committed bool
	check := chromedp.ActionFunc(func(ctx context.Context) error {
		w, ok := chromedp015guard.FromContext(ctx)
		if !ok {
			return errors.New("not run under a guard")
		}
		committed = w.State().Committed
		return nil
	})
	err = chromedp.Run(ctx, chromedp015guard.Guard(w, check))
	fmt.Println(committed, err)
	fmt.Println(chromedp.Run(ctx, check))
	// Output:
	// true <nil>
	// not run under a guard
}
