package tabguard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// probeTimeout bounds each CDP call Watch makes to learn the tab's state.
const probeTimeout = time.Second

// start learns the tab's state as it is now.
func (w *Watcher) start(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	p := w.page.Context(pctx)
	// Any navigation news applied since the watcher registered is fresher
	// than what the probes learn: the browser-side answers can trail a
	// commit (the target URL reads "" for a moment after one).
	const seq = 0
	if w.dialogs != DialogRefuse {
		// Before anything asks the renderer, which an open dialog holds.
		w.clearDialog(p)
	}
	if err := (proto.InspectorEnable{}).Call(p); err != nil {
		return w.startError("enable the Inspector domain", err)
	}
	info, err := proto.TargetGetTargetInfo{TargetID: w.page.TargetID}.Call(w.page.Browser().Context(pctx))
	if err != nil {
		return w.startError("read the target info", err)
	}
	// While a first navigation is pending, the target already shows the new
	// URL but the history has only about:blank: that mismatch means nothing
	// is committed yet. A tab too new to have history is in its first load.
	// A renderer hung by chrome://hang also shows chrome://hang/ as its
	// target URL while the history keeps the page it hangs on (measured on
	// Chromium 156): Chrome's debug URLs never load, so the page is kept.
	hist, err := proto.PageGetNavigationHistory{}.Call(p)
	if err != nil && !errors.Is(err, cdp.ErrNotAttachedToActivePage) {
		return w.startError("read the navigation history", err)
	}
	url, committed := info.TargetInfo.URL, false
	if err == nil && hist.CurrentIndex >= 0 && hist.CurrentIndex < len(hist.Entries) {
		current := hist.Entries[hist.CurrentIndex].URL
		committed = current == url
		if !committed && strings.HasPrefix(url, "chrome://") && current != "about:blank" {
			url, committed = current, true
		}
	}

	w.mu.Lock()
	crashed := w.tab.State().Crashed
	w.tab.Learn(url, committed, seq)
	w.broadcast()
	w.mu.Unlock()

	// Renderer-bound calls are held while the tab is crashed, in its first
	// load or busy. On a crashed or loading tab Network is enabled in the
	// background, bounded by the watcher's life; on a committed one Watch
	// waits for it (at most probeTimeout), so a Navigate right after Watch
	// has its load errors seen.
	if !committed || crashed {
		w.enableNetworkLater()
		return nil
	}
	network := make(chan error, 1)
	go func() {
		network <- w.probe(p, func(p *rod.Page) error { return proto.NetworkEnable{}.Call(p) })
	}()
	var tree *proto.PageGetFrameTreeResult
	err = w.probe(p, func(p *rod.Page) (err error) {
		tree, err = proto.PageGetFrameTree{}.Call(p)
		return err
	})
	if err == nil && tree.FrameTree != nil && tree.FrameTree.Frame != nil && tree.FrameTree.Frame.UnreachableURL != "" {
		// An error page stands in for the committed URL, which the
		// browser-side history does not tell.
		w.mu.Lock()
		w.tab.LearnErrorPage(tree.FrameTree.Frame.UnreachableURL, seq)
		w.broadcast()
		w.mu.Unlock()
	}
	var ready *proto.RuntimeEvaluateResult
	err = w.probe(p, func(p *rod.Page) (err error) {
		ready, err = proto.RuntimeEvaluate{Expression: `document.readyState`}.Call(p)
		return err
	})
	if err == nil && ready.Result.Value.Str() == "complete" {
		w.mu.Lock()
		w.tab.LearnLoaded(seq)
		w.broadcast()
		w.mu.Unlock()
	}
	if err := <-network; err != nil {
		w.enableNetworkLater()
	}
	return nil
}

// enableNetworkLater enables the Network domain once the renderer answers;
// Chrome holds the call while the tab is crashed or in its first load.
func (w *Watcher) enableNetworkLater() {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		_ = proto.NetworkEnable{}.Call(w.page)
	}()
}

// probe runs fn on the tab as a call in flight, so a crash or Close cuts it short.
func (w *Watcher) probe(p *rod.Page, fn func(*rod.Page) error) error {
	ctx, stop := context.WithCancelCause(p.GetContext())
	defer stop(nil)
	call := &inflight{cancel: stop}
	if err := w.enter(call, nil); err != nil {
		return err
	}
	defer w.leave(call)
	return fn(p.Context(ctx))
}

func (w *Watcher) startError(what string, err error) error {
	if errors.Is(err, context.Canceled) && w.page.GetContext().Err() != nil {
		return &BlockedError{Reason: ErrTabClosed} // rod ends the session's context on detach
	}
	var be *BlockedError
	if errors.As(w.classify(err), &be) {
		return be
	}
	return fmt.Errorf("watch tab: %s: %w", what, err)
}
