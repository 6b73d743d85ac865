package tabguard

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/engine"
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
	eng     *engine.Browser
	d       *driver
	in      *intake // taken by the transport of a browser from Connect
	changes chan TabChange
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the event loop
}

// WatchBrowser starts following b's events and lists b's tabs. opts applies
// to every Watcher it hands out and may be nil. A nil browser gives
// [ErrInvalidArgument]; a browser that went away gives [ErrBrowserGone].
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
		browser: b.Context(ctx),
		changes: make(chan TabChange, engine.ChangesBuffer),
		cancel:  cancel,
		in:      &intake{},
	}
	bw.d = &driver{browser: bw.browser, root: b}
	// A browser from Connect takes the intake: its transport hands every
	// message to the engine before rod reads it. Any other browser answers
	// the call, and its events come through rod's fan-out, behind a barrier.
	var d engine.Driver = syncDriver{bw.d}
	if _, err := bw.browser.Call(ctx, "", subscribeMethod, bw.in); err == nil && bw.in.taken.Load() {
		d = bw.d
	}
	bw.eng = engine.NewBrowser(d, opts.config(engine.Chan[TabChange]{C: bw.changes, Convert: tabChange}))
	if bw.in.taken.Load() {
		bw.in.eng.Store(bw.eng)
	} else {
		events := bw.browser.Event()
		bw.wg.Add(1)
		go func() {
			defer bw.wg.Done()
			bw.run(ctx, events)
		}()
	}
	if err := bw.eng.Start(ctx); err != nil {
		_ = bw.Close()
		return nil, err
	}
	return bw, nil
}

// Watch starts following page, a tab of the watched browser, and returns a
// Watcher that evaluates on it, as [Watch] does, fed from bw's subscription.
// The caller should call the Watcher's Close when done with the tab;
// closing bw closes it too.
func (bw *BrowserWatcher) Watch(page *rod.Page) (*Watcher, error) {
	return bw.watch(context.Background(), page, false)
}

// Close stops following the browser, closes every Watcher it handed out
// (failing their calls in flight with [ErrWatcherClosed]), closes the
// Changes channel and waits for its goroutines to return. It leaves the
// browser and its tabs alone. Calling Close again does nothing.
func (bw *BrowserWatcher) Close() error {
	bw.in.closed.Store(true)
	bw.in.eng.Store(nil) // rod keeps the last params of each method it sent
	bw.eng.Close()
	bw.cancel()
	bw.wg.Wait()
	bw.d.close()
	return nil
}

// run pushes the browser's events into the engine, in the order Chrome
// sent them, until the subscription ends: rod closes it when the DevTools
// socket dies, when the program ends the browser's context, or when bw
// closes (ctx ends).
func (bw *BrowserWatcher) run(ctx context.Context, events <-chan *rod.Message) {
	for m := range events {
		bw.dispatch(m)
	}
	if ctx.Err() != nil && bw.d.root.GetContext().Err() == nil {
		return // bw closed
	}
	// At once, for the calls in flight waiting to learn of it, with the
	// error the transport handed them as the reason (Disconnected); then
	// with what the driver's next call says, which may tell more.
	bw.eng.Disconnected("")
	bw.eng.Disconnected(bw.eng.LostReason())
}

// dispatch hands one event to the engine. Most events concern no watched
// tab: their method is checked before anything is decoded.
func (bw *BrowserWatcher) dispatch(m *rod.Message) {
	if m.SessionID != "" {
		if !tabstate.Methods[m.Method] {
			return
		}
		if t := bw.eng.Tab(string(m.SessionID)); t != nil {
			if ev, ok := pageEvent(m); ok {
				t.Apply(ev)
			}
		}
		return
	}
	switch m.Method {
	case "Target.targetCreated":
		var e proto.TargetTargetCreated
		if m.Load(&e) && e.TargetInfo != nil {
			bw.eng.TargetCreated(targetInfo(e.TargetInfo))
		}
	case "Target.targetInfoChanged":
		var e proto.TargetTargetInfoChanged
		if m.Load(&e) && e.TargetInfo != nil {
			bw.eng.TargetInfoChanged(targetInfo(e.TargetInfo))
		}
	case "Target.targetCrashed":
		var e proto.TargetTargetCrashed
		m.Load(&e)
		bw.eng.TargetCrashed(string(e.TargetID), e.Status)
	case "Target.targetDestroyed":
		var e proto.TargetTargetDestroyed
		m.Load(&e)
		bw.eng.TargetDestroyed(string(e.TargetID))
	case "Target.detachedFromTarget":
		// rod cancels the page's context on detach too, but not that of a
		// page clone made with page.Context, so the engine is told.
		var e proto.TargetDetachedFromTarget
		m.Load(&e)
		bw.eng.DetachedFromTarget(string(e.SessionID))
	case "Target.attachedToTarget":
		bw.d.markers.seen(m)
	case "Browser.downloadWillBegin":
		var e proto.BrowserDownloadWillBegin
		m.Load(&e)
		bw.eng.Download(tabstate.DownloadWillBegin{FrameID: string(e.FrameID), GUID: e.GUID, URL: e.URL, SuggestedFilename: e.SuggestedFilename})
	case "Browser.downloadProgress":
		var e proto.BrowserDownloadProgress // no filePath: engine's savedHere
		m.Load(&e)
		bw.eng.Download(tabstate.DownloadProgress{GUID: e.GUID, State: string(e.State),
			TotalBytes: int64(e.TotalBytes), ReceivedBytes: int64(e.ReceivedBytes)})
	}
}
