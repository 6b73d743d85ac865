package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabguard/tabguard/chromedpguard"
)

func ExampleWatcher_EvalFrame() {
	tab, url, done := exampleTab(`<title>outer</title><iframe id=f srcdoc="<title>inner</title><p>signed in</p>"></iframe>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()

	w, err := chromedpguard.Watch(tab, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}
	// The page's load event waits for its iframes.
	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}

	frames := w.Frames()
	for _, f := range frames {
		fmt.Println(f.URL, f.OutOfProcess, f.Refusal)
	}
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
	fmt.Println(errors.Is(err, chromedpguard.ErrFrameDetached), len(w.Frames()))
	// Output:
	// about:srcdoc false <nil>
	// "inner: signed in"
	// true 0
}
