// Package sizeprobe is the program that the plain and guarded commands
// share: they differ only in how they evaluate, so the difference in their
// binary sizes is what adopting chromedpguard adds to a chromedp program.
// scripts/bench builds both and reports the sizes.
package sizeprobe

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/chromedp/chromedp"
)

// Run serves a page from 127.0.0.1, opens it in headless Chromium, calls
// eval on the tab and prints what it returns. eval gets the tab's chromedp
// context. It drives the system Chromium, or the browser $TABGUARD_BROWSER
// names.
func Run(eval func(tab context.Context) (int, error)) error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>sizeprobe</title><p>hello</p>`)
	}))
	defer srv.Close()

	dir, err := os.MkdirTemp("", "tabguard-sizeprobe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(dir))
	if bin := os.Getenv("TABGUARD_BROWSER"); bin != "" {
		opts = append(opts, chromedp.ExecPath(bin))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc() // waits for the browser to exit
	tab, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()

	if err := chromedp.Do(tab, chromedp.Navigate(srv.URL)); err != nil {
		return fmt.Errorf("load the page: %w: install chromium or set TABGUARD_BROWSER", err)
	}
	n, err := eval(tab)
	if err != nil {
		return fmt.Errorf("evaluate: %w", err)
	}
	fmt.Println(n)
	return nil
}
