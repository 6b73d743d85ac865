package tabguard

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// BrowserWatcher follows every watched tab of one browser through a single
// subscription to the browser's CDP events, and hands out a [Watcher] for
// each tab. Its methods are safe for concurrent use. The caller should call
// Close when finished.
//
// rod fans every event of every tab out to every subscriber, so each
// subscription costs work on every event of the browser. A BrowserWatcher
// adds one subscription and one goroutine however many tabs it watches;
// [Watch] makes one of each per tab.
type BrowserWatcher struct {
	browser *rod.Browser // bound to the watcher's own context
	opts    Options
	cancel  context.CancelFunc
	done    <-chan struct{} // closed when Close starts
	wg      sync.WaitGroup  // the event loop and marker detaches

	mu       sync.RWMutex
	sessions map[proto.TargetSessionID]*Watcher
	targets  map[proto.TargetTargetID][]*Watcher
	closed   bool
	gone     bool // the connection to the browser is lost

	markers markers
}

// WatchBrowser starts following b's events. opts applies to every Watcher
// it hands out and may be nil. A nil or unconnected browser gives
// [ErrInvalidArgument].
func WatchBrowser(b *rod.Browser, opts *Options) (*BrowserWatcher, error) {
	if b == nil || b.GetContext() == nil {
		return nil, fmt.Errorf("%w: nil browser: pass a connected rod.Browser", ErrInvalidArgument)
	}
	if b.GetContext().Err() != nil {
		return nil, &BlockedError{Reason: ErrBrowserGone}
	}
	if opts == nil {
		opts = &Options{}
	}
	ctx, cancel := context.WithCancel(b.GetContext())
	bw := &BrowserWatcher{
		browser:  b.Context(ctx),
		opts:     *opts,
		cancel:   cancel,
		done:     ctx.Done(),
		sessions: map[proto.TargetSessionID]*Watcher{},
		targets:  map[proto.TargetTargetID][]*Watcher{},
	}
	events := bw.browser.Event()
	bw.wg.Add(1)
	go func() {
		defer bw.wg.Done()
		bw.run(ctx, events)
	}()
	return bw, nil
}

// Watch starts following page, a tab of the watched browser, and returns a
// Watcher that evaluates on it, as [Watch] does, fed from bw's subscription.
// The caller should call the Watcher's Close when done with the tab;
// closing bw closes it too.
func (bw *BrowserWatcher) Watch(page *rod.Page) (*Watcher, error) {
	return bw.watch(page, false)
}

// Close stops following the browser, closes every Watcher it handed out
// (failing their evals in flight with [ErrWatcherClosed]) and waits for its
// goroutines to return. It leaves the browser and its tabs alone. Calling
// Close again does nothing.
func (bw *BrowserWatcher) Close() error {
	for _, w := range bw.mark(&bw.closed) {
		_ = w.Close()
	}
	bw.cancel()
	bw.wg.Wait()
	return nil
}

// add registers w, so the events of its tab reach it.
func (bw *BrowserWatcher) add(w *Watcher) error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	switch {
	case bw.closed:
		return fmt.Errorf("%w: the BrowserWatcher is closed", ErrWatcherClosed)
	case bw.gone:
		return &BlockedError{Reason: ErrBrowserGone}
	case bw.sessions[w.page.SessionID] != nil:
		return fmt.Errorf("%w: page %s is watched already: use the Watcher the first Watch returned", ErrInvalidArgument, w.page.TargetID)
	}
	bw.sessions[w.page.SessionID] = w
	bw.targets[w.page.TargetID] = append(bw.targets[w.page.TargetID], w)
	return nil
}

// remove forgets w; its tab's events no longer reach it.
func (bw *BrowserWatcher) remove(w *Watcher) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if bw.sessions[w.page.SessionID] == w {
		delete(bw.sessions, w.page.SessionID)
	}
	ws := bw.targets[w.page.TargetID]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(bw.targets, w.page.TargetID)
	} else {
		bw.targets[w.page.TargetID] = ws
	}
}

// run applies the browser's events, in the order Chrome sent them, until
// ctx ends. rod closes the subscription when the DevTools socket dies.
func (bw *BrowserWatcher) run(ctx context.Context, events <-chan *rod.Message) {
	for m := range events {
		bw.dispatch(m)
	}
	if ctx.Err() == nil {
		bw.disconnected()
	}
}

// dispatch hands one event to the watchers it concerns. Most events concern
// none: their method is checked before anything is decoded.
func (bw *BrowserWatcher) dispatch(m *rod.Message) {
	if m.SessionID != "" {
		if !tabstate.Methods[m.Method] {
			return
		}
		bw.mu.RLock()
		w := bw.sessions[m.SessionID]
		bw.mu.RUnlock()
		if w == nil {
			return
		}
		if ev, ok := pageEvent(m); ok {
			w.apply(ev)
		}
		return
	}
	switch m.Method {
	case "Target.targetCrashed":
		var e proto.TargetTargetCrashed
		m.Load(&e)
		bw.toTarget(e.TargetID, tabstate.TargetCrashed{TargetID: string(e.TargetID), Status: e.Status})
	case "Target.targetDestroyed":
		var e proto.TargetTargetDestroyed
		m.Load(&e)
		bw.toTarget(e.TargetID, tabstate.Detached{TargetID: string(e.TargetID)})
	case "Target.detachedFromTarget":
		// rod cancels the page's context on detach too, but not that of a
		// page clone made with page.Context, so the watcher looks itself.
		var e proto.TargetDetachedFromTarget
		m.Load(&e)
		bw.mu.RLock()
		w := bw.sessions[e.SessionID]
		bw.mu.RUnlock()
		if w != nil {
			w.apply(tabstate.Detached{SessionID: string(e.SessionID)})
		}
	case "Target.attachedToTarget":
		bw.markers.seen(m)
	}
}

// toTarget applies ev to every watcher of the target id.
func (bw *BrowserWatcher) toTarget(id proto.TargetTargetID, ev tabstate.Event) {
	bw.mu.RLock()
	ws := bw.targets[id]
	bw.mu.RUnlock()
	for _, w := range ws {
		w.apply(ev)
	}
}

// disconnected records that the connection to the browser is lost, on every
// watcher, cutting their evals in flight short.
func (bw *BrowserWatcher) disconnected() {
	for _, w := range bw.mark(&bw.gone) {
		w.apply(tabstate.Disconnected{})
	}
}

// mark sets *flag (bw.closed or bw.gone) under bw.mu and returns the
// watchers bw has then.
func (bw *BrowserWatcher) mark(flag *bool) []*Watcher {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	*flag = true
	all := make([]*Watcher, 0, len(bw.sessions))
	for _, w := range bw.sessions {
		all = append(all, w)
	}
	return all
}
