package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard"
)

// Tab fills a [tabguard.TabState] from the CDP events of one chromedp tab,
// so [tabguard.EvalBlockedReason] and [tabguard.EvalWithTimeout] work for a
// chromedp program as they do inside tabguard's rod Watcher. Its methods
// are safe for concurrent use.
type Tab struct {
	targetID target.ID

	mu         sync.Mutex
	state      tabguard.TabState
	mainFrame  cdp.FrameID
	docRequest network.RequestID
	inflight   map[*context.CancelCauseFunc]struct{}
}

// Follow starts filling a Tab from the events of the tab of ctx, a chromedp
// context that has run once. It follows the tab until ctx ends; from then
// on, as after the tab detaches, the Tab refuses evals as closed. Call it
// before navigating, so that no event is missed; chromedp already enables
// the Inspector, Page and Network domains that send them.
func Follow(ctx context.Context) (*Tab, error) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil {
		return nil, fmt.Errorf("%w: not a chromedp context that has run: call chromedp.Run on it first", tabguard.ErrInvalidArgument)
	}
	t := &Tab{targetID: c.Target.TargetID, mainFrame: cdp.FrameID(c.Target.TargetID), inflight: map[*context.CancelCauseFunc]struct{}{}}
	// Both funcs run on chromedp's reading goroutine: they only take t.mu.
	if err := chromedp.Listen(ctx, t.onTargetEvent); err != nil {
		return nil, err
	}
	if err := chromedp.ListenBrowser(ctx, t.onBrowserEvent); err != nil {
		return nil, err
	}
	detached, err := chromedp.Detached(ctx)
	if err != nil {
		return nil, err
	}
	go func() { // ends with ctx
		select {
		case <-detached:
		case <-ctx.Done(): // cancelling a chromedp tab context closes the tab
		}
		t.closed()
	}()
	return t, nil
}

// State returns what is known of the tab now. It sends nothing to the tab.
func (t *Tab) State() tabguard.TabState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Eval evaluates the JavaScript expression js on the tab of ctx, awaiting a
// promise, and decodes the result into a T. It refuses up front with the
// [*tabguard.BlockedError] of the tab's state, bounds the call with
// [tabguard.EvalWithTimeout] (timeout <= 0 means tabguard.DefaultEvalTimeout),
// and fails an eval in flight as soon as the renderer crashes.
func Eval[T any](ctx context.Context, t *Tab, timeout time.Duration, js string) (T, error) {
	var zero T
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if err := t.enter(&cancel); err != nil {
		return zero, err
	}
	defer t.leave(&cancel)
	v, err := tabguard.EvalWithTimeout(cctx, timeout, func(ctx context.Context) (T, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	})
	var be *tabguard.BlockedError
	if err != nil && errors.As(context.Cause(cctx), &be) {
		return zero, be // cut short by a crash or a close
	}
	return v, err
}

func (t *Tab) enter(cancel *context.CancelCauseFunc) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := tabguard.EvalBlockedReason(t.state); err != nil {
		return err
	}
	t.inflight[cancel] = struct{}{}
	return nil
}

func (t *Tab) leave(cancel *context.CancelCauseFunc) {
	t.mu.Lock()
	delete(t.inflight, cancel)
	t.mu.Unlock()
}

func (t *Tab) onBrowserEvent(ev any) {
	if e, ok := ev.(*target.EventTargetCrashed); ok && e.TargetID == t.targetID {
		t.crashed(e.Status) // the only crash event that carries the status
	}
}

func (t *Tab) onTargetEvent(ev any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &t.state
	switch e := ev.(type) {
	case *inspector.EventTargetCrashed:
		t.crashLocked("")
	case *page.EventFrameNavigated:
		if e.Frame == nil || e.Frame.ParentID != "" {
			return
		}
		t.mainFrame = e.Frame.ID
		s.Crashed, s.CrashReason = false, "" // a new document: the renderer lives
		if e.Frame.UnreachableURL != "" {
			s.URL, s.Committed, s.ErrorPage = e.Frame.UnreachableURL, false, true
			return
		}
		s.URL, s.Committed, s.ErrorPage, s.LoadError = e.Frame.URL+e.Frame.URLFragment, true, false, ""
	case *page.EventNavigatedWithinDocument:
		if e.FrameID == t.mainFrame {
			s.URL = e.URL
		}
	case *network.EventRequestWillBeSent:
		if e.Type == network.ResourceTypeDocument && e.FrameID == t.mainFrame && string(e.RequestID) == string(e.LoaderID) && e.Request != nil {
			t.docRequest, s.URL = e.RequestID, e.Request.URL
		}
	case *network.EventLoadingFailed:
		if e.RequestID == t.docRequest && !e.Canceled { // a cancelled load leaves the old page
			s.LoadError = e.ErrorText
		}
	}
}

func (t *Tab) crashed(status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.crashLocked(status)
}

// crashLocked records a crash and cuts the evals in flight short. t.mu is held.
func (t *Tab) crashLocked(status string) {
	t.state.Crashed = true
	if status != "" {
		t.state.CrashReason = status
	}
	t.failLocked()
}

func (t *Tab) closed() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state.Closed = true
	t.failLocked()
}

// failLocked cuts every eval in flight short with the state's refusal.
func (t *Tab) failLocked() {
	err := tabguard.EvalBlockedReason(t.state)
	for cancel := range t.inflight {
		(*cancel)(err)
		delete(t.inflight, cancel)
	}
}
