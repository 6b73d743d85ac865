// Command demo shows tabguard on a real headless Chromium: a normal eval, a
// crashed tab refused with its reason, an eval that times out, and a large
// DOM read capped inside the page.
//
//	go run ./examples/demo
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	// Two minutes for the whole demo: a cancel, not a deadline, for a
	// context's deadline would govern each call made under it, where here
	// each call on a tab keeps Options.EvalTimeout.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer time.AfterFunc(2*time.Minute, cancel).Stop()

	// A system browser if there is one; rod fetches its own only when none is found.
	l := launcher.New().Headless(true).NoSandbox(os.Geteuid() == 0).Leakless(false).
		Set("disable-gpu").Set("no-first-run").Set("disable-background-networking").
		Set("disable-component-update").Set("disable-sync")
	if bin, ok := launcher.LookPath(); ok {
		l = l.Bin(bin)
	}
	u, err := l.Context(ctx).Launch()
	if err != nil {
		return fmt.Errorf("launch a browser: %w", err)
	}
	defer l.Cleanup()
	defer l.Kill()
	browser := rod.New().ControlURL(u).Context(ctx)
	if err := browser.Connect(); err != nil {
		return fmt.Errorf("connect to the browser: %w", err)
	}
	defer browser.Close()

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			fmt.Fprint(w, "<html><body>", strings.Repeat("<p>héllo wörld</p>", 20_000), "</body></html>")
			return
		}
		fmt.Fprint(w, "<html><head><title>tabguard demo</title></head><body>hello</body></html>")
	}))
	defer srv.Close()

	steps := []func(context.Context, *rod.Browser, string) error{healthy, crashed, timeout, bigDOM}
	for _, step := range steps {
		if err := step(ctx, browser, srv.URL); err != nil {
			return err
		}
	}
	return nil
}

// open loads url in a new tab and watches it; the caller closes the watcher.
func open(ctx context.Context, browser *rod.Browser, url string) (*rod.Page, *tabguard.Watcher, error) {
	page, err := browser.Page(proto.TargetCreateTarget{URL: url})
	if err != nil {
		return nil, nil, fmt.Errorf("open a tab: %w", err)
	}
	if err := page.Context(ctx).WaitLoad(); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", url, err)
	}
	w, err := tabguard.Watch(page, &tabguard.Options{EvalTimeout: 2 * time.Second})
	return page, w, err
}

// healthy: an eval on a healthy tab answers as rod's would.
func healthy(ctx context.Context, browser *rod.Browser, url string) error {
	_, w, err := open(ctx, browser, url)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Eval(ctx, `() => document.title`)
	if err != nil {
		return fmt.Errorf("healthy eval: %w", err)
	}
	fmt.Printf("1. eval:     title = %q\n", res.Value.Str())
	return nil
}

// crashed: after the renderer dies, evals are refused at once with the reason.
func crashed(ctx context.Context, browser *rod.Browser, url string) error {
	page, w, err := open(ctx, browser, url)
	if err != nil {
		return err
	}
	defer w.Close()
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond) // a crashed tab never answers
	_ = proto.PageCrash{}.Call(page.Context(cctx))
	cancel()
	for start := time.Now(); w.Blocked(ctx) == nil && time.Since(start) < 5*time.Second; {
		time.Sleep(10 * time.Millisecond) // Chrome reports the crash within milliseconds
	}
	start := time.Now()
	_, err = w.Eval(ctx, `() => 1`)
	if !errors.Is(err, tabguard.ErrTabCrashed) {
		return fmt.Errorf("want a crash refusal, got %v", err)
	}
	fmt.Printf("2. crashed:  %v (refused in %v)\n", err, time.Since(start).Round(time.Microsecond))
	return nil
}

// timeout: an eval that never settles answers at its deadline, saying what the tab was doing.
func timeout(ctx context.Context, browser *rod.Browser, url string) error {
	_, w, err := open(ctx, browser, url)
	if err != nil {
		return err
	}
	defer w.Close()
	start := time.Now()
	_, err = w.Eval(ctx, `() => new Promise(() => {})`)
	if !errors.Is(err, tabguard.ErrEvalTimeout) {
		return fmt.Errorf("want a timeout, got %v", err)
	}
	fmt.Printf("3. timeout:  %v (after %v)\n", err, time.Since(start).Round(10*time.Millisecond))
	return nil
}

// bigDOM: a large page comes back capped, measured and sliced inside the page.
func bigDOM(ctx context.Context, browser *rod.Browser, url string) error {
	_, w, err := open(ctx, browser, url+"/big")
	if err != nil {
		return err
	}
	defer w.Close()
	dom, err := w.DOM(ctx, 200)
	if err != nil {
		return fmt.Errorf("read the DOM: %w", err)
	}
	fmt.Printf("4. DOM:      %d bytes in the page, truncated=%v, ends %q\n",
		dom.Size, dom.Truncated, dom.HTML[strings.LastIndex(dom.HTML, "\n")+1:])
	return nil
}
