package chromedp015guard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// exampleServer serves html at the URL of the server it returns, which
// the caller closes.
func exampleServer(html string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	}))
}

func ExampleWatcher_PDFTo() {
	srv := exampleServer(`<title>Report</title><h1>Q3</h1><p style="background:gold">3 open</p>`)
	defer srv.Close()
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeTab()
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	// Each read asks Chrome for 64 KiB at most: that bounds the memory a
	// PDF takes, however many pages it has.
	w, err := chromedp015guard.Watch(tab, &chromedp015guard.Options{PDFChunk: 64 << 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, srv.URL); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Loaded }); err != nil {
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
	n, err := w.PDFTo(ctx, file, page.PrintToPDF().WithPrintBackground(true))
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
	srv := exampleServer(`<title>Feed</title><p>42 new</p>`)
	defer srv.Close()
	tab, closeTab, err := exampleWindowTab()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeTab()
	// No deadline of the context's: Options.EvalTimeout bounds each call.
	ctx := tab
	w, err := chromedp015guard.Watch(tab, &chromedp015guard.Options{EvalTimeout: 2 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	if err := w.Navigate(ctx, srv.URL); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Loaded }); err != nil {
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
	var te *chromedp015guard.TimeoutError
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
