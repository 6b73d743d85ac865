package chromedpguard

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
)

// Open opens a new tab, watches it and, when url is not empty, loads url in
// it as [Watcher.Navigate] does, within ctx's deadline, or Options.EvalTimeout. Once
// the tab exists it returns its Watcher, also with the load's error: a
// failed load leaves the tab open, refused with the reason. A URL that
// Options.URLs does not allow gives [ErrURLBlocked], and no tab.
//
// The Watcher's Context is the tab's chromedp context, for chromedp.Run;
// it ends with the Watcher's Close, which leaves the tab open
// ([Watcher.CloseTab] closes it).
func (bw *BrowserWatcher) Open(ctx context.Context, url string) (*Watcher, error) {
	return engine.Open(ctx, bw.eng, url, func(ctx context.Context, id string) (*Watcher, *engine.Tab, error) {
		w, err := bw.attach(ctx, target.ID(id))
		if err != nil {
			return nil, nil, err
		}
		return w, w.t, nil
	})
}

// WatchTarget attaches to the tab id, one the program did not open (a
// popup that [BrowserWatcher.Tabs] lists, say), and watches it, within
// ctx. The Watcher's Context is a chromedp context attached to the tab,
// for chromedp.Run; it ends with the Watcher's Close, which leaves the tab
// open. A discarded tab holds the attach until it is revived (see
// [ErrTabDiscarded]), so revive one first.
func (bw *BrowserWatcher) WatchTarget(ctx context.Context, id target.ID) (*Watcher, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	return bw.attach(ctx, id)
}

// attach makes a chromedp context attached to target id, which detaches
// (and leaves the tab open) when it ends, and watches it, within ctx.
func (bw *BrowserWatcher) attach(ctx context.Context, id target.ID) (*Watcher, error) {
	tctx, release := chromedp.NewContext(bw.life, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	done := make(chan error, 1) // buffered: an attach left behind still ends
	go func() { done <- chromedp.Do(tctx) }()
	select {
	case err := <-done:
		if err != nil {
			release()
			return nil, fmt.Errorf("attach to tab %s: %w", id, err)
		}
	case <-ctx.Done():
		release()
		<-done
		return nil, fmt.Errorf("attach to tab %s: %w", id, ctx.Err())
	}
	w, err := bw.watch(tctx, ctx, false)
	if err != nil {
		release()
		return nil, err
	}
	w.release = release
	return w, nil
}

// CloseTab closes the watched tab from the browser side, which works
// whatever the renderer does (crashed, hung, holding a dialog), and then
// the watcher. A page that asks to stay (a beforeunload handler) is closed
// anyway, unless Options.AskBeforeClose is set: then CloseTab refuses at
// once with [ErrDialogOpen] and leaves the tab and the watcher open. It
// returns once the tab is gone from [BrowserWatcher.Tabs]
// (Chrome reports it gone a moment after it answers). Closing a tab that is
// gone already is no error. A tab Chrome has not closed within ctx and 5
// seconds gives an error that says so; the watcher is closed all the same.
func (w *Watcher) CloseTab(ctx context.Context) error {
	err := w.t.CloseTab(ctx)
	if engine.KeptOpen(err) {
		return err // Options.AskBeforeClose: the page asked to stay
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}
