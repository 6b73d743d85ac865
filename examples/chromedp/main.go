// Command chromedp shows package chromedpguard in a chromedp program. It
// serves a page from 127.0.0.1, opens it in headless Chromium and watches
// the tab: it evaluates, lets a runaway script time out, crashes the
// renderer, is refused, and recovers with a reload:
//
//	cd examples/chromedp && go run .
//
// It drives the system Chromium, which chromedp finds on PATH, or the
// browser that $TABGUARD_BROWSER names; it never downloads one.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/chromedpguard"
)

// evalTimeout bounds each call on the tab whose context has no deadline:
// Navigate, Eval and Reload.
const evalTimeout = 2 * time.Second

func main() {
	// A minute for the whole example, the browser's start included. It is a
	// cancel, not a deadline: a context's deadline would govern each call
	// made under it, where here each call on the tab keeps evalTimeout.
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(time.Minute, cancel)
	err := run(ctx, os.Stdout)
	timer.Stop()
	cancel()
	if err != nil {
		log.Fatal(err)
	}
}

// run walks through the example and prints what each step returns to out.
func run(ctx context.Context, out io.Writer) error {
	srv, err := serve()
	if err != nil {
		return err
	}
	defer srv.Close()
	ctx, stop, err := launch(ctx) // from here ctx is the tab's, under the same deadline
	if err != nil {
		return err
	}
	defer stop()
	w, err := watch(ctx, srv.URL)
	if err != nil {
		return err
	}
	defer w.Close()

	res, err := w.Eval(ctx, `() => document.title`)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "title: %s\n", res.Value)

	// The loop holds the page's main thread: the eval times out, and
	// TerminateOnTimeout stops the loop, so the tab answers again.
	_, err = w.Eval(ctx, `() => { while (true) {} }`)
	fmt.Fprintln(out, "runaway script:", err)
	var te *chromedpguard.TimeoutError
	if errors.As(err, &te) {
		fmt.Fprintln(out, "  cause:", te.Cause)
	}

	if err := crash(ctx, w); err != nil {
		return err
	}
	_, err = w.Eval(ctx, `() => document.title`) // refused up front, nothing is sent
	fmt.Fprintln(out, "after a renderer crash:", err)
	if errors.Is(err, chromedpguard.ErrTabCrashed) {
		if err := w.Reload(ctx); err != nil {
			return err
		}
	}
	res, err = w.Eval(ctx, `() => location.href`) // answers as soon as Reload returns
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "after Reload: %s\n", res.Value)
	return nil
}

// serve serves the example's page from 127.0.0.1, and from no other address.
func serve() (*httptest.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><title>Orders</title><p>3 open</p>`)
		})}}
	srv.Start()
	return srv, nil
}

// launch starts headless Chromium with a fresh profile and returns the
// chromedp context of its first tab, derived from ctx: the browser ends
// with ctx. stop closes the browser and removes the profile.
func launch(ctx context.Context) (tab context.Context, stop func(), err error) {
	dir, err := os.MkdirTemp("", "tabguard-chromedp-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(dir),
		// Chrome resolves no host name, so it reaches nothing but 127.0.0.1.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancel := chromedp.NewContext(actx)
	stop = func() {
		cancel()
		cancelAlloc() // waits for the browser to exit
		_ = os.RemoveAll(dir)
	}
	if err := chromedp.Do(tab); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start Chromium: %w: install chromium or set TABGUARD_BROWSER", err)
	}
	return tab, stop, nil
}

// watch watches the tab of ctx, a chromedp context, and loads url in it,
// load event included. The caller should close the watcher when finished.
func watch(ctx context.Context, url string) (*chromedpguard.Watcher, error) {
	w, err := chromedpguard.Watch(ctx, &chromedpguard.Options{EvalTimeout: evalTimeout, TerminateOnTimeout: true})
	if err != nil {
		return nil, err
	}
	err = w.Navigate(ctx, url) // returns once the page has committed
	if err == nil {
		_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	}
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	return w, nil
}

// crash kills the renderer of the watched tab, the tab of ctx, and returns
// once the watcher knows. chromedp may log that it could not read the
// crashed tab's document: that is the crash, not a failure of the example.
func crash(ctx context.Context, w *chromedpguard.Watcher) error {
	// Chrome never answers Page.crash: it gets a short deadline of its own.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{})
	cancel()
	_, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Crashed })
	return err
}
