package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"
)

// browserCtx is the chromedp context of the browser every test shares; each
// test opens its own tab on it.
var browserCtx context.Context

// browserM starts the shared browser around the tests and closes it before
// goleak looks for leaked goroutines.
type browserM struct{ m *testing.M }

func (b browserM) Run() int {
	dir, err := os.MkdirTemp("", "tabguard-chromedp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocatorOptions(dir)...)
	defer cancelAlloc() // waits for the browser process to exit
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "start Chromium:", err) // fail, never skip: CI must not go green untested
		return 1
	}
	browserCtx = ctx
	return b.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(browserM{m}) }
