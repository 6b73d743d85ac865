package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// load navigates page to url and waits for its load event, within ctx. It
// returns early with the watcher's refusal when the tab can no longer load
// (its renderer crashed, it was closed, the browser went away). A load
// still going when ctx ends is stopped, so the tab holds no request open.
func load(ctx context.Context, page *rod.Page, w *tabguard.Watcher, url string) (err error) {
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = errors.Join(err, stopLoading(page))
		}
	}()
	// The load event, not rod's WaitLoad: that one is JavaScript, which a
	// tab that crashed while loading never answers.
	wait := page.Context(lctx).WaitEvent(&proto.PageLoadEventFired{})
	if err := page.Context(lctx).Navigate(url); err != nil {
		return err
	}
	loaded := make(chan struct{})
	go func() { defer close(loaded); wait() }() // returns at the event, or when lctx ends
	defer func() { stop(); <-loaded }()

	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-loaded:
			return ctx.Err()
		case <-tick.C:
			if err := w.Blocked(ctx); err != nil {
				return err
			}
		}
	}
}

// stopLoading aborts the tab's load within a second.
func stopLoading(page *rod.Page) error {
	ctx, cancel := context.WithTimeout(page.GetContext(), time.Second)
	defer cancel()
	if err := (proto.PageStopLoading{}).Call(page.Context(ctx)); err != nil {
		return fmt.Errorf("stop loading: %w", err)
	}
	return nil
}
