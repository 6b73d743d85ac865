package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-rod/rod"
	"go.uber.org/goleak"
)

// testBrowser is the headless Chromium every in-memory test shares.
var testBrowser *rod.Browser

// browserM launches the shared browser around the tests and ends it before
// goleak looks for leaked goroutines.
type browserM struct{ m *testing.M }

func (b browserM) Run() int {
	br, closeBrowser, err := launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // fail, never skip: CI must not go green untested
		return 1
	}
	testBrowser = br
	defer closeBrowser()
	defer removeServer()
	return b.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(browserM{m}) }
