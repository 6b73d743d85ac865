package chromedp015guard

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

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
	life    context.Context // the listener's, which Close ends
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the loss watch
}

// WatchBrowser starts following the browser of ctx, a chromedp context
// whose browser runs (call chromedp.Run on it once first), and lists the
// browser's tabs. It serves every tab of the browser with one listener;
// ctx may be any context of the browser, and the BrowserWatcher outlives it
// until Close. opts applies to every Watcher it hands out and may be nil.
func WatchBrowser(ctx context.Context, opts *Options) (*BrowserWatcher, error) {
	var c *chromedp.Context
	if ctx != nil {
		c = chromedp.FromContext(ctx)
	}
	if c == nil || c.Browser == nil {
		return nil, fmt.Errorf("%w: not a chromedp context with a running browser: run chromedp.Run(ctx) on it first", ErrInvalidArgument)
	}
	if opts == nil {
		opts = &Options{}
	}
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	bw := &BrowserWatcher{browser: c.Browser, changes: make(chan TabChange, engine.ChangesBuffer), life: life, cancel: cancel}
	d := &driver{session: session{b: c.Browser}, life: life}
	bw.d = d
	bw.eng = engine.NewBrowser(d, opts.config(engine.Chan[TabChange]{C: bw.changes, Convert: tabChange}))
	if d.Lost() {
		_ = bw.Close()
		return nil, &BlockedError{Reason: ErrBrowserGone, Detail: bw.eng.LostReason()}
	}
	chromedp.ListenBrowser(life, bw.dispatch)
	bw.wg.Add(1)
	go func() {
		defer bw.wg.Done()
		select {
		case <-bw.browser.LostConnection:
			bw.eng.Disconnected(bw.eng.LostReason())
		case <-life.Done():
		}
	}()
	if err := bw.eng.Start(life); err != nil {
		_ = bw.Close()
		return nil, err
	}
	return bw, nil
}

// Watch starts following the tab of ctx, a chromedp context of bw's
// browser, opening it if it is not open yet, and returns a Watcher fed
// from bw's listener. The caller should call the Watcher's Close when done
// with the tab; closing bw closes it too.
func (bw *BrowserWatcher) Watch(ctx context.Context) (*Watcher, error) {
	if err := open(ctx); err != nil {
		return nil, err
	}
	return bw.watch(ctx, false)
}

// Close stops following the browser, closes every Watcher it handed out
// (failing their calls in flight with [ErrWatcherClosed]), closes the
// Changes channel and waits for its goroutines to return. It leaves the
// browser and its tabs alone. Calling Close again does nothing.
func (bw *BrowserWatcher) Close() error {
	bw.eng.Close()
	bw.d.close()
	bw.cancel()
	bw.wg.Wait()
	return nil
}

// dispatch pushes one event of the browser's session into the engine. It
// runs on chromedp's goroutine that reads the socket, so the engine only
// takes locks there.
func (bw *BrowserWatcher) dispatch(ev any) {
	method, params, ok := event(ev)
	if !ok {
		return
	}
	var p struct {
		TargetInfo *engine.TargetInfo `json:"targetInfo"`
		TargetID   string             `json:"targetId"`
		SessionID  string             `json:"sessionId"`
		Status     string             `json:"status"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	switch method {
	case "Target.targetCreated":
		if p.TargetInfo != nil {
			bw.eng.TargetCreated(*p.TargetInfo)
		}
	case "Target.targetInfoChanged":
		if p.TargetInfo != nil {
			bw.eng.TargetInfoChanged(*p.TargetInfo)
		}
	case "Target.targetCrashed":
		bw.eng.TargetCrashed(p.TargetID, p.Status)
	case "Target.targetDestroyed":
		bw.eng.TargetDestroyed(p.TargetID)
	case "Target.detachedFromTarget":
		bw.eng.DetachedFromTarget(p.SessionID)
	case "Browser.downloadWillBegin", "Browser.downloadProgress":
		if ev, ok := tabstate.Decode(method, params); ok {
			bw.eng.Download(ev)
		}
	}
}
