package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/tabguard/tabguard/chromedpguard"
)

func ExampleWatcher_PDFTo() {
	tab, url, done := exampleTab(`<title>Report</title><h1>Q3</h1><p style="background:gold">3 open</p>`)
	defer done()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	// Each read asks Chrome for 64 KiB at most: that bounds the memory a
	// PDF takes, however many pages it has.
	w, err := chromedpguard.Watch(tab, &chromedpguard.Options{PDFChunk: 64 << 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}

	file, err := os.CreateTemp("", "report-*.pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(file.Name())
	defer file.Close()
	// Written to the file as it comes. The parameters are page.PrintToPDF's.
	background := true
	n, err := w.PDFTo(ctx, file, &page.PrintToPDFParams{PrintBackground: &background})
	if err != nil {
		fmt.Println(err)
		return
	}
	head := make([]byte, 5)
	_, err = file.ReadAt(head, 0)
	fmt.Println(string(head), n > 0, err)
	// Output: %PDF- true <nil>
}

func ExampleWatcher_Recover() {
	tab, url, done := exampleTab(`<title>Feed</title><p>42 new</p>`)
	defer done()
	// No deadline of the context's: Options.EvalTimeout bounds each call.
	ctx := tab
	w, err := chromedpguard.Watch(tab, &chromedpguard.Options{EvalTimeout: 2 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, url); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded }); err != nil {
		fmt.Println(err)
		return
	}

	// A script of the page's holds its main thread: the screenshot answers
	// at its deadline, saying so.
	if _, err := w.Eval(ctx, `() => { setTimeout(() => { for (;;) {} }, 0) }`); err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.Screenshot(ctx, false, 100)
	var te *chromedpguard.TimeoutError
	if errors.As(err, &te) {
		fmt.Println(te.Cause)
	}

	// Recover stops the script, and keeps the page as it is.
	r, err := w.Recover(ctx)
	fmt.Println(r.Action, err)
	res, err := w.Eval(ctx, `() => document.querySelector("p").textContent`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Value))
	// Output:
	// TimeoutBusyScript
	// terminated the script <nil>
	// "42 new"
}
