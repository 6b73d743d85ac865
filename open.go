package tabguard

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/engine"
)

// Open opens a new tab, watches it and, when url is not empty, loads url in
// it as [Watcher.Navigate] does, within ctx's deadline, or Options.EvalTimeout. Once
// the tab exists it returns its Watcher, also with the load's error: a
// failed load leaves the tab open, refused with the reason. A URL that
// Options.URLs does not allow gives [ErrURLBlocked], and no tab.
//
// rod's Browser.PageFromTarget, which attaches to the tab, waits with no
// deadline of its own; Open bounds it by ctx and closes the tab if ctx
// ends first.
func (bw *BrowserWatcher) Open(ctx context.Context, url string) (*Watcher, error) {
	return engine.Open(ctx, bw.eng, url, func(ctx context.Context, id string) (*Watcher, *engine.Tab, error) {
		page, err := bw.attach(ctx, proto.TargetTargetID(id), true)
		if err != nil {
			return nil, nil, err
		}
		w, err := bw.watch(ctx, page, false)
		if err != nil {
			return nil, nil, err
		}
		return w, w.t, nil
	})
}

// WatchTarget attaches to the tab id, one the program did not open (a
// popup that [BrowserWatcher.Tabs] lists, say), and watches it, within
// ctx. rod's Browser.PageFromTarget, which attaches, waits with no deadline
// of its own, and waits for good on a discarded tab: revive one first (see
// [ErrTabDiscarded]).
func (bw *BrowserWatcher) WatchTarget(ctx context.Context, id proto.TargetTargetID) (*Watcher, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	page, err := bw.attach(ctx, id, false)
	if err != nil {
		return nil, err
	}
	return bw.watch(ctx, page, false)
}

// attach makes the rod page of target within ctx. The page's own context
// is a child of the BrowserWatcher's, so it lives on after ctx, and it ends
// when the tab's session does.
// When ctx ends first, that context is cancelled, which ends every call
// rod's attach waits on: rod sends Emulation calls before it follows the
// tab's detach, and Chrome may never answer them (measured under load: a
// tab opened on a stalled page). A tab of the program's own (opened) is
// also closed.
func (bw *BrowserWatcher) attach(ctx context.Context, id proto.TargetTargetID, opened bool) (*rod.Page, error) {
	type attached struct {
		page *rod.Page
		err  error
	}
	pctx, cancel := context.WithCancel(bw.browser.GetContext())
	done := make(chan attached, 1) // buffered: an attach left behind still ends
	go func() {
		p, err := bw.browser.Context(pctx).PageFromTarget(id)
		done <- attached{p, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			cancel()
			return nil, fmt.Errorf("attach to tab %s: %w", id, a.err)
		}
		context.AfterFunc(a.page.GetContext(), cancel) // the session ended
		return a.page, nil
	case <-ctx.Done():
		if opened {
			_ = bw.eng.CloseOwnTab(string(id))
		}
		cancel()
		if a := <-done; a.page != nil && a.page.GetContext().Err() != nil {
			bw.browser.RemoveState(id) // rod cached the page this attach made
		}
		return nil, fmt.Errorf("attach to tab %s: %w", id, ctx.Err())
	}
}

// TargetID is the watched tab's target: what [BrowserWatcher.Tabs] lists it by.
func (w *Watcher) TargetID() proto.TargetTargetID { return w.page.TargetID }

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
