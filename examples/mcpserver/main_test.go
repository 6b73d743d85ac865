package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"go.uber.org/goleak"
)

// testBrowser is the headless Chromium every test shares.
var testBrowser *rod.Browser

// browserM launches the shared browser around the tests and ends it before
// goleak looks for leaked goroutines.
type browserM struct{ m *testing.M }

func (b browserM) Run() int {
	l, br, err := launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // fail, never skip: CI must not go green untested
		return 1
	}
	testBrowser = br
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = br.Context(ctx).Close() // the kill below ends it either way
		l.Kill()
		l.Cleanup()
	}()
	return b.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(browserM{m}) }

// launch starts a system Chromium (never a downloaded one) with a fresh
// user-data dir, which Cleanup removes.
func launch() (*launcher.Launcher, *rod.Browser, error) {
	bin, ok := launcher.LookPath()
	if !ok {
		return nil, nil, fmt.Errorf("no Chromium found: install the chromium package")
	}
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).Leakless(false).
		Set("disable-gpu").Set("disable-quic").Set("no-first-run").
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync")
	u, err := l.Launch()
	if err != nil {
		return nil, nil, fmt.Errorf("launch %s: %w", bin, err)
	}
	b := rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		l.Kill()
		l.Cleanup()
		return nil, nil, fmt.Errorf("connect to %s: %w", bin, err)
	}
	return l, b, nil
}
