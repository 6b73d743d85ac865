package chromedpguard

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
)

// BrowserWatcher follows every tab of one chromedp browser through a single
// listener on the browser's events (chromedp.ListenBrowser): it hands out a
// [Watcher] for each tab a program calls, lists every tab with its health
// ([BrowserWatcher.Tabs]) and reports crashes, new tabs and closed ones
// ([BrowserWatcher.Changes]), all without a CDP call. Its methods are safe
// for concurrent use. The caller should call Close when finished.
type BrowserWatcher struct {
	browser *chromedp.Browser
	eng     *engine.Browser
	d       *driver
	changes chan TabChange
	// life is a chromedp context of the browser that Close ends: the
	// listener's, and the parent of the tabs Open and WatchTarget attach to.
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the loss watch
	// unsubscribe ends the engine's hooks on a connection that resumes
	// (NewRemoteAllocator's); nil on another.
	unsubscribe func()
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
	bw := &BrowserWatcher{browser: c.Browser, changes: make(chan TabChange, engine.ChangesBuffer), life: life, cancel: cancel}
	d := &driver{browser: c.Browser, life: life}
	bw.d = d
	bw.eng = engine.NewBrowser(d, opts.config(engine.Chan[TabChange]{C: bw.changes, Convert: tabChange}))
	if d.Lost() {
		_ = bw.Close()
		return nil, &BlockedError{Reason: ErrBrowserGone, Detail: bw.eng.LostReason()}
	}
	if follow := resumerOf(c.Browser); follow != nil {
		bw.unsubscribe = follow(bw.eng)
	}
	if err := chromedp.ListenBrowser(life, bw.dispatch); err != nil {
		_ = bw.Close()
		return nil, fmt.Errorf("watch browser: %w", err)
	}
	bw.wg.Add(1)
	go func() {
		defer bw.wg.Done()
		bw.watchLoss()
	}()
	if err := bw.eng.Start(life); err != nil {
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
	return bw.watch(ctx, ctx, false)
}

// Close stops following the browser, closes every Watcher it handed out
// (failing their calls in flight with [ErrWatcherClosed]), closes the
// Changes channel and waits for its goroutines to return. It leaves the
// browser and its tabs alone. Calling Close again does nothing.
func (bw *BrowserWatcher) Close() error {
	if bw.unsubscribe != nil {
		bw.unsubscribe()
	}
	bw.eng.Close()
	bw.d.close()
	bw.cancel()
	bw.wg.Wait()
	return nil
}

// watchLoss tells the engine when chromedp loses the connection, so
// waiters wake and Changes closes even when no call is in flight to find
// the loss.
func (bw *BrowserWatcher) watchLoss() {
	select {
	case <-bw.browser.LostConnection:
		bw.eng.Disconnected(bw.eng.LostReason())
	case <-bw.life.Done():
	}
}

// dispatch pushes one event of the browser's session into the engine. It
// runs on chromedp's goroutine that reads the socket, so the engine only
// takes locks there.
func (bw *BrowserWatcher) dispatch(ev any) {
	switch e := ev.(type) {
	case *target.EventTargetCreated:
		if e.TargetInfo != nil {
			bw.eng.TargetCreated(targetInfo(e.TargetInfo))
		}
	case *target.EventTargetInfoChanged:
		if e.TargetInfo != nil {
			bw.eng.TargetInfoChanged(targetInfo(e.TargetInfo))
		}
	case *target.EventTargetCrashed:
		bw.eng.TargetCrashed(string(e.TargetID), e.Status)
	case *target.EventTargetDestroyed:
		bw.eng.TargetDestroyed(string(e.TargetID))
	case *target.EventDetachedFromTarget:
		bw.eng.DetachedFromTarget(string(e.SessionID))
	case *browser.EventDownloadWillBegin:
		bw.eng.Download(tabstate.DownloadWillBegin{FrameID: string(e.FrameID), GUID: e.GUID, URL: e.URL, SuggestedFilename: e.SuggestedFilename})
	case *browser.EventDownloadProgress:
		bw.eng.Download(tabstate.DownloadProgress{GUID: e.GUID, State: string(e.State),
			TotalBytes: int64(e.TotalBytes), ReceivedBytes: int64(e.ReceivedBytes), FilePath: e.FilePath})
	}
}
