package tabguard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// closeTabTimeout bounds Target.closeTarget, which the browser answers.
const closeTabTimeout = 5 * time.Second

// Open opens a new tab, watches it and, when url is not empty, loads url in
// it as [Watcher.Navigate] does, within ctx and Options.EvalTimeout. Once
// the tab exists it returns its Watcher, also with the load's error: a
// failed load leaves the tab open, refused with the reason. A URL that
// Options.URLs does not allow gives [ErrURLBlocked], and no tab.
//
// rod's Browser.PageFromTarget, which attaches to the tab, waits with no
// deadline of its own; Open bounds it by ctx and closes the tab if ctx
// ends first.
func (bw *BrowserWatcher) Open(ctx context.Context, url string) (*Watcher, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	if url != "" && bw.opts.URLs != nil {
		if err := bw.opts.URLs.Check(url); err != nil {
			return nil, err
		}
	}
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(bw.browser.Context(ctx))
	if err != nil {
		return nil, fmt.Errorf("open a tab: %w", err)
	}
	page, err := bw.attach(ctx, target.TargetID, true)
	if err != nil {
		return nil, errors.Join(err, bw.closeTab(target.TargetID))
	}
	w, err := bw.Watch(page)
	if err != nil {
		return nil, errors.Join(err, bw.closeTab(target.TargetID))
	}
	if url == "" {
		return w, nil
	}
	return w, w.Navigate(ctx, url)
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
	return bw.Watch(page)
}

// attach makes the rod page of target within ctx. The page's own context
// is the BrowserWatcher's, so it lives on after ctx.
// When ctx ends first, a tab of the program's own (opened) is closed, which
// ends the calls rod waits on; another is left alone, with rod's attach
// going on in the background until it answers.
func (bw *BrowserWatcher) attach(ctx context.Context, id proto.TargetTargetID, opened bool) (*rod.Page, error) {
	type attached struct {
		page *rod.Page
		err  error
	}
	done := make(chan attached, 1) // buffered: an attach left behind still ends
	go func() {
		p, err := bw.browser.PageFromTarget(id)
		done <- attached{p, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return nil, fmt.Errorf("attach to tab %s: %w", id, a.err)
		}
		return a.page, nil
	case <-ctx.Done():
		if opened {
			_ = bw.closeTab(id)
			<-done
		}
		return nil, fmt.Errorf("attach to tab %s: %w", id, ctx.Err())
	}
}

// closeTab closes tab id within closeTabTimeout, where Open gives up on a
// tab of its own.
func (bw *BrowserWatcher) closeTab(id proto.TargetTargetID) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTabTimeout)
	defer cancel()
	if err := bw.closeTarget(ctx, id); err != nil {
		return fmt.Errorf("close tab %s: %w", id, err)
	}
	return nil
}

// closeRetry is how long closeTarget waits for Chrome to report the tab
// gone before it asks again.
const closeRetry = 500 * time.Millisecond

// closeTarget asks Chrome to close tab id until it reports the tab gone
// (the target leaves the list) or ctx ends. Measured on Chromium 156 on a
// loaded machine: now and then Chrome answers Target.closeTarget and never
// closes the tab (5 in 15 tabs that had just loaded about:blank); asking
// again closes it. The answer to a repeated call is ignored: the event
// decides.
func (bw *BrowserWatcher) closeTarget(ctx context.Context, id proto.TargetTargetID) error {
	removed := bw.removed(id)
	call := func() error {
		_, err := proto.TargetCloseTarget{TargetID: id}.Call(bw.browser.Context(ctx))
		return err
	}
	if err := call(); err != nil {
		return err
	}
	bw.mu.RLock()
	listening := !bw.closed && !bw.gone
	bw.mu.RUnlock()
	if !listening {
		return nil // no event will say: Chrome's answer is all there is
	}
	retry := time.NewTicker(closeRetry)
	defer retry.Stop()
	for {
		select {
		case <-removed:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("the browser has not closed it: %w", ctx.Err())
		case <-retry.C:
			_ = call()
		}
	}
}

// TargetID is the watched tab's target: what [BrowserWatcher.Tabs] lists it by.
func (w *Watcher) TargetID() proto.TargetTargetID { return w.page.TargetID }

// CloseTab closes the watched tab from the browser side, which works
// whatever the renderer does (crashed, hung, holding a dialog), and then
// the watcher. It returns once the tab is gone from [BrowserWatcher.Tabs]
// (Chrome reports it gone a moment after it answers). Closing a tab that is
// gone already is no error. A tab Chrome has not closed within ctx and 5
// seconds gives an error that says so; the watcher is closed all the same.
func (w *Watcher) CloseTab(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	cctx, cancel := context.WithTimeout(ctx, closeTabTimeout)
	defer cancel()
	err := w.bw.closeTarget(cctx, w.page.TargetID)
	if err != nil && !w.State().Closed {
		var be *BlockedError
		if !errors.As(w.classify(err), &be) || be.Reason != ErrTabClosed {
			return errors.Join(fmt.Errorf("close tab %s: %w", w.page.TargetID, err), w.Close())
		}
	}
	return w.Close()
}
