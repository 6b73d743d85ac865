package tabguard

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// BrowserWatcher follows every tab of one browser through a single
// subscription to the browser's CDP events: it hands out a [Watcher] for
// each tab a program evaluates on, lists every tab with its health
// ([BrowserWatcher.Tabs]) and reports crashes, new tabs and closed ones
// ([BrowserWatcher.Changes]), all without a CDP call. Its methods are safe
// for concurrent use. The caller should call Close when finished.
//
// rod fans every event of every tab out to every subscriber, so each
// subscription costs work on every event of the browser. A BrowserWatcher
// adds one subscription and one goroutine however many tabs it watches, and
// no goroutine per watched tab; [Watch], for one-tab programs, makes a
// BrowserWatcher of its own, so it costs one subscription and one goroutine
// a tab.
type BrowserWatcher struct {
	browser *rod.Browser // bound to the watcher's own context
	opts    Options
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the event loop and marker detaches
	changes chan TabChange // closed when the event loop ends

	mu       sync.RWMutex
	sessions map[proto.TargetSessionID]*Watcher
	targets  map[proto.TargetTargetID]*pageTarget
	order    uint64 // numbers targets in the order they were seen
	missed   int    // changes dropped since the last one delivered
	// lastCreated is the page target created last, to tell a discard.
	lastCreated newTarget
	closed      bool
	gone        bool // the connection to the browser is lost

	markers markers
}

// WatchBrowser starts following b's events and lists b's tabs. opts applies
// to every Watcher it hands out and may be nil. A nil browser gives
// [ErrInvalidArgument]; a browser that went away gives [ErrBrowserGone].
func WatchBrowser(b *rod.Browser, opts *Options) (*BrowserWatcher, error) {
	bw, err := startBrowserWatcher(b, opts)
	if err != nil {
		return nil, err
	}
	if err := bw.listTargets(); err != nil {
		_ = bw.Close()
		return nil, err
	}
	return bw, nil
}

// startBrowserWatcher subscribes to b's events and starts the event loop.
func startBrowserWatcher(b *rod.Browser, opts *Options) (*BrowserWatcher, error) {
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
		changes:  make(chan TabChange, changesBuffer),
		sessions: map[proto.TargetSessionID]*Watcher{},
		targets:  map[proto.TargetTargetID]*pageTarget{},
	}
	events := bw.browser.Event()
	bw.wg.Add(1)
	go func() {
		defer bw.wg.Done()
		defer close(bw.changes)
		bw.run(ctx, events)
	}()
	if opts.Heartbeat > 0 {
		bw.wg.Add(1)
		go func() {
			defer bw.wg.Done()
			bw.heartbeat(ctx, opts.Heartbeat)
		}()
	}
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
// (failing their calls in flight with [ErrWatcherClosed]), closes the
// Changes channel and waits for its goroutines to return. It leaves the
// browser and its tabs alone. Calling Close again does nothing.
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
	t := bw.target(w.page.TargetID)
	t.watchers = append(t.watchers, w)
	return nil
}

// remove forgets w; its tab's events no longer reach it.
func (bw *BrowserWatcher) remove(w *Watcher) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if bw.sessions[w.page.SessionID] == w {
		delete(bw.sessions, w.page.SessionID)
	}
	if t := bw.targets[w.page.TargetID]; t != nil {
		t.watchers = without(t.watchers, w)
	}
}

// run applies the browser's events, in the order Chrome sent them, until
// ctx ends. rod closes the subscription when the DevTools socket dies.
func (bw *BrowserWatcher) run(ctx context.Context, events <-chan *rod.Message) {
	for m := range events {
		bw.dispatch(m)
	}
	if ctx.Err() == nil {
		bw.disconnected(bw.lostReason())
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
	case "Target.targetCreated":
		var e proto.TargetTargetCreated
		m.Load(&e)
		bw.created(e.TargetInfo)
		bw.seen(e.TargetInfo, true)
	case "Target.targetInfoChanged":
		var e proto.TargetTargetInfoChanged
		m.Load(&e)
		bw.seen(e.TargetInfo, true)
	case "Target.targetCrashed":
		var e proto.TargetTargetCrashed
		m.Load(&e)
		bw.targetEvent(e.TargetID, tabstate.TargetCrashed{TargetID: string(e.TargetID), Status: e.Status})
	case "Target.targetDestroyed":
		var e proto.TargetTargetDestroyed
		m.Load(&e)
		bw.targetEvent(e.TargetID, bw.closing(e.TargetID))
	case "Target.detachedFromTarget":
		// rod cancels the page's context on detach too, but not that of a
		// page clone made with page.Context, so the watcher looks itself.
		var e proto.TargetDetachedFromTarget
		m.Load(&e)
		bw.mu.RLock()
		w := bw.sessions[e.SessionID]
		bw.mu.RUnlock()
		if w != nil {
			w.apply(bw.closing(w.page.TargetID))
		}
	case "Target.attachedToTarget":
		bw.markers.seen(m)
	}
}

// disconnected records that the connection to the browser is lost, and
// why, on every watcher, cutting their calls in flight short.
func (bw *BrowserWatcher) disconnected(reason string) {
	for _, w := range bw.mark(&bw.gone) {
		w.apply(tabstate.Disconnected{Reason: reason})
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

// without returns ws without w, in a new slice: readers may hold the old one.
func without(ws []*Watcher, w *Watcher) []*Watcher {
	out := make([]*Watcher, 0, len(ws))
	for _, x := range ws {
		if x != w {
			out = append(out, x)
		}
	}
	return out
}
