package chromedpguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/tabstate"
)

// BrowserWatcher follows every tab of one chromedp browser through a single
// listener on the browser's events (chromedp.ListenBrowser): it hands out a
// [Watcher] for each tab a program calls, and lists every tab with its
// health ([BrowserWatcher.Tabs]) without a CDP call. Its methods are safe
// for concurrent use. The caller should call Close when finished.
type BrowserWatcher struct {
	browser *chromedp.Browser
	opts    Options
	cancel  context.CancelFunc // ends the listener, the heartbeat, the loss watch
	wg      sync.WaitGroup

	mu       sync.RWMutex
	sessions map[target.SessionID]*Watcher
	targets  map[target.ID]*pageTarget
	order    uint64
	// lastCreated is the page target created last, to tell a discard.
	lastCreated newTarget
	closed      bool
	gone        bool

	reasonOnce sync.Once
	reason     string // why the connection was lost, once it was
}

// WatchBrowser starts following the browser of ctx, a chromedp context
// whose browser runs (call chromedp.Run or chromedp.Do on it once first),
// and lists the browser's tabs. It serves every tab of the browser with
// one listener; ctx may be any context of the browser, a tab's included,
// and the BrowserWatcher outlives it until Close. opts applies to every
// Watcher it hands out and may be nil.
//
// A context that is not a chromedp context, or whose browser is not
// allocated, gives [ErrInvalidArgument]; a browser that went away gives
// [ErrBrowserGone].
func WatchBrowser(ctx context.Context, opts *Options) (*BrowserWatcher, error) {
	var c *chromedp.Context
	if ctx != nil {
		c = chromedp.FromContext(ctx)
	}
	if c == nil || c.Browser == nil {
		return nil, fmt.Errorf("%w: not a chromedp context with a running browser: run chromedp.Do(ctx) on it first", ErrInvalidArgument)
	}
	if opts == nil {
		opts = &Options{}
	}
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	bw := &BrowserWatcher{
		browser:  c.Browser,
		opts:     *opts,
		cancel:   cancel,
		sessions: map[target.SessionID]*Watcher{},
		targets:  map[target.ID]*pageTarget{},
	}
	if bw.lost() {
		cancel()
		return nil, bw.goneError()
	}
	if err := chromedp.ListenBrowser(life, bw.dispatch); err != nil {
		cancel()
		return nil, fmt.Errorf("watch browser: %w", err)
	}
	bw.wg.Add(1)
	go func() {
		defer bw.wg.Done()
		select {
		case <-bw.browser.LostConnection:
			bw.lost()
		case <-life.Done():
		}
	}()
	if opts.Heartbeat > 0 {
		bw.wg.Add(1)
		go func() {
			defer bw.wg.Done()
			bw.heartbeat(life, opts.Heartbeat)
		}()
	}
	if err := bw.listTargets(life); err != nil {
		_ = bw.Close()
		return nil, err
	}
	return bw, nil
}

// Watch starts following the tab of ctx, a chromedp context of bw's
// browser (from chromedp.NewContext), opening it if it is not open yet, and
// returns a Watcher fed from bw's listener. The caller should call the
// Watcher's Close when done with the tab; closing bw closes it too.
func (bw *BrowserWatcher) Watch(ctx context.Context) (*Watcher, error) {
	if err := open(ctx); err != nil {
		return nil, err
	}
	return bw.watch(ctx, false)
}

// Close stops following the browser, closes every Watcher it handed out
// (failing their calls in flight with [ErrWatcherClosed]) and waits for its
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

// dispatch applies one event of the browser's session. It runs on
// chromedp's goroutine that reads the socket, so it only takes locks.
func (bw *BrowserWatcher) dispatch(ev any) {
	switch e := ev.(type) {
	case *target.EventTargetCreated:
		bw.created(e.TargetInfo)
		bw.seen(e.TargetInfo)
	case *target.EventTargetInfoChanged:
		bw.seen(e.TargetInfo)
	case *target.EventTargetCrashed:
		bw.targetEvent(e.TargetID, tabstate.TargetCrashed{TargetID: string(e.TargetID), Status: e.Status})
	case *target.EventTargetDestroyed:
		bw.targetEvent(e.TargetID, bw.closing(e.TargetID))
	case *target.EventDetachedFromTarget:
		bw.mu.RLock()
		w := bw.sessions[e.SessionID]
		bw.mu.RUnlock()
		if w != nil {
			w.apply(bw.closing(w.id))
		}
	}
}

// add registers w, so the events of its tab reach it.
func (bw *BrowserWatcher) add(w *Watcher) error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	switch {
	case bw.closed:
		return fmt.Errorf("%w: the BrowserWatcher is closed", ErrWatcherClosed)
	case bw.gone:
		return &BlockedError{Reason: ErrBrowserGone, Detail: bw.reason}
	case bw.sessions[w.target.SessionID] != nil:
		return fmt.Errorf("%w: tab %s is watched already: use the Watcher the first Watch returned", ErrInvalidArgument, w.id)
	}
	bw.sessions[w.target.SessionID] = w
	t := bw.target(w.id)
	t.watchers = append(t.watchers, w)
	return nil
}

// remove forgets w; its tab's events no longer reach it.
func (bw *BrowserWatcher) remove(w *Watcher) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if bw.sessions[w.target.SessionID] == w {
		delete(bw.sessions, w.target.SessionID)
	}
	if t := bw.targets[w.id]; t != nil {
		t.watchers = without(t.watchers, w)
	}
}

// lost reports whether the connection to the browser is lost, and when it
// is, records why on every watcher, cutting their calls in flight short.
// chromedp closes Browser.LostConnection before it cancels the contexts
// that hang on the browser, so a call ended by that cancellation finds the
// loss here and names it, where chromedp returns a bare context.Canceled.
func (bw *BrowserWatcher) lost() bool {
	select {
	case <-bw.browser.LostConnection:
	default:
		return false
	}
	bw.reasonOnce.Do(func() { bw.reason = lostReason(bw.browser) })
	bw.disconnected(bw.reason)
	return true
}

// disconnected records that the connection to the browser is lost, and
// why, on every watcher.
func (bw *BrowserWatcher) disconnected(reason string) {
	for _, w := range bw.mark(&bw.gone) {
		w.apply(tabstate.Disconnected{Reason: reason})
	}
}

func (bw *BrowserWatcher) goneError() error {
	bw.mu.RLock()
	defer bw.mu.RUnlock()
	return &BlockedError{Reason: ErrBrowserGone, Detail: bw.reason}
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

// lostReason learns why a lost connection ended: chromedp keeps the reason
// and wraps it into the error of any call made after the loss.
func lostReason(b *chromedp.Browser) string {
	ctx, cancel := context.WithTimeout(context.Background(), heartbeatBound)
	defer cancel()
	return goneReason(b.Call(ctx, "Browser.getVersion", nil, nil))
}

// goneReason says why the connection ended, from the error of a call.
func goneReason(err error) string {
	var ce *cdpws.ConnectionError
	var be *BlockedError
	switch {
	case errors.As(err, &ce):
		return ce.Reason
	case errors.As(err, &be) && be.Detail != "":
		return be.Detail
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "connection broken"
	}
	return "the DevTools connection closed"
}

// heartbeatBound is how long a heartbeat waits for its answer, at most.
const heartbeatBound = time.Second

// heartbeat sends Browser.getVersion every interval until ctx ends; one
// unanswered within min(interval, heartbeatBound) fails every watcher
// with ErrBrowserGone.
func (bw *BrowserWatcher) heartbeat(ctx context.Context, interval time.Duration) {
	bound := min(interval, heartbeatBound)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		hctx, cancel := context.WithTimeout(ctx, bound)
		err := bw.browser.Call(hctx, "Browser.getVersion", nil, nil)
		cancel()
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			bw.disconnected("no answer from the browser for " + bound.String())
			return
		default:
			if !bw.lost() {
				bw.disconnected(goneReason(err))
			}
			return
		}
	}
}

// listTargets learns the browser's page targets as they are now, and asks
// for the browser-wide target events (Target.targetCrashed among them),
// which chromedp turns on only for the first tab of a browser it starts.
func (bw *BrowserWatcher) listTargets(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := cdp.Call(ctx, bw.browser, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true})
	var res target.GetTargetsResult
	if err == nil {
		res, err = cdp.Call(ctx, bw.browser, target.GetTargets, target.GetTargetsParams{})
	}
	if err != nil {
		if bw.lost() || errors.Is(err, io.EOF) {
			return bw.goneError()
		}
		return fmt.Errorf("watch browser: list its tabs: %w", err)
	}
	for _, info := range res.TargetInfos {
		bw.seen(info)
	}
	return nil
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
