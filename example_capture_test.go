package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

func ExampleWatcher_PDFTo() {
	page, done := exampleTab(`<title>Report</title><h1>Q3</h1><p style="background:gold">3 open</p>`)
	defer done()
	// Each read asks Chrome for 64 KiB at most: that bounds the memory a
	// PDF takes, however many pages it has.
	w, err := tabguard.Watch(page, &tabguard.Options{PDFChunk: 64 << 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	file, err := os.CreateTemp("", "report-*.pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(file.Name())
	defer file.Close()
	// Written to the file as it comes. The parameters are rod's.
	n, err := w.PDFTo(ctx, file, &proto.PagePrintToPDF{PrintBackground: true})
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
	page, done := exampleTab(`<title>Feed</title><p>42 new</p>`)
	defer done()
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 2 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	// No deadline of the context's: Options.EvalTimeout bounds each call.
	ctx := context.Background()

	// A script of the page's holds its main thread: the screenshot answers
	// at its deadline, saying so.
	if _, err := w.Eval(ctx, `() => { setTimeout(() => { for (;;) {} }, 0) }`); err != nil {
		fmt.Println(err)
		return
	}
	_, err = w.Screenshot(ctx, false, nil)
	var te *tabguard.TimeoutError
	if errors.As(err, &te) {
		fmt.Println(te.Cause)
	}

	// Recover stops the script, and keeps the page as it is.
	r, err := w.Recover(ctx)
	fmt.Println(r.Action, err)
	v, err := w.Eval(ctx, `() => document.querySelector("p").textContent`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Value.Str())
	// Output:
	// TimeoutBusyScript
	// terminated the script <nil>
	// 42 new
}

func ExampleWatcher_PDF() {
	page, done := exampleTab(`<title>Invoice</title><p>Total: 12 EUR</p>`)
	defer done()
	w, err := tabguard.Watch(page, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A small document, into memory; nil asks for Chrome's defaults.
	pdf, err := w.PDF(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(pdf[:5]))

	// A crashed tab is refused at once, not waited on.
	crashTab(page)
	_, err = w.PDF(ctx, &proto.PagePrintToPDF{Landscape: true})
	fmt.Println(errors.Is(err, tabguard.ErrTabCrashed))
	// Output:
	// %PDF-
	// true
}
