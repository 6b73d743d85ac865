// Command chromedp shows tabguard's deadline and refusals for a chromedp
// program: Tab fills a tabguard.TabState from chromedp's events, and Eval
// runs through tabguard.EvalBlockedReason and tabguard.EvalWithTimeout.
// It opens a 127.0.0.1 page in headless Chromium, evaluates on it, lets an
// eval time out, crashes the renderer and shows the refusal:
//
//	cd examples/chromedp && go run .
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>Orders</title><p>3 open</p>`)
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "tabguard-chromedp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	actx, cancel := chromedp.NewExecAllocator(context.Background(), allocatorOptions(dir)...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser, with no timeout
		return fmt.Errorf("start browser: %w", err)
	}
	tab, err := Follow(ctx)
	if err != nil {
		return err
	}
	nctx, ncancel := context.WithTimeout(ctx, 10*time.Second)
	defer ncancel()
	if err := chromedp.Do(nctx, chromedp.Navigate(srv.URL)); err != nil {
		return err
	}

	title, err := Eval[string](ctx, tab, time.Second, `document.title`)
	fmt.Printf("title: %q, err: %v\n", title, err)

	_, err = Eval[int](ctx, tab, 500*time.Millisecond, `new Promise(() => {})`)
	fmt.Println("a promise that never settles:", err)

	crash(ctx)
	for deadline := time.Now().Add(5 * time.Second); tab.State().CrashReason == "" && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	_, err = Eval[string](ctx, tab, time.Second, `document.title`)
	fmt.Println("after a renderer crash:", err)
	return nil
}

// crash kills the tab's renderer. Chrome never answers Page.crash, so it
// gets a short context of its own.
func crash(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{}) // no reply is the expected outcome
}
