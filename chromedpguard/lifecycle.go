package chromedpguard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/tabguard/tabguard/tabstate"
)

// stopTimeout bounds Page.stopLoading after a load ran out of time; Chrome
// answers it from the browser side in milliseconds.
const stopTimeout = time.Second

// Navigate loads url in the tab and returns once the main frame has
// committed the new document, within Options.EvalTimeout. It works on a
// crashed tab and on one whose last load failed: it is how they recover.
// Unlike chromedp.Navigate it does not wait for the load event; wait for
// TabState.Loaded with [Watcher.Wait] when the whole page is needed.
//
// A load that fails gives [ErrNoDocument] naming the network error, and a
// renderer that dies during the load gives [ErrTabCrashed] as soon as it
// dies. A beforeunload dialog gives [ErrDialogOpen], unless Options.Dialogs
// handles it. A load still pending at the deadline is stopped
// (Page.stopLoading), so the tab keeps the page it had, and gives
// [ErrEvalTimeout]. A URL that Options.URLs does not allow gives
// [ErrURLBlocked], and nothing is loaded.
//
// A page that navigates itself can race the call: a navigation the old
// page started before the new document committed may still replace it
// (Chrome commits both, in the order they started). Navigate returns at
// its own commit; TabState.URL then names the navigation under way, and an
// eval that the replacement cuts short gives [ErrNavigated].
func (w *Watcher) Navigate(ctx context.Context, url string) error {
	if url == "" {
		return fmt.Errorf("%w: empty URL", ErrInvalidArgument)
	}
	if w.urls != nil {
		if err := w.urls.Check(url); err != nil {
			return err
		}
	}
	return w.load(ctx, "navigate to "+url, w.navigateTo(url))
}

// navigateTo starts a navigation to url with Page.navigate.
func (w *Watcher) navigateTo(url string) func(ctx context.Context) (string, bool, error) {
	return func(ctx context.Context) (string, bool, error) {
		res, err := cdp.Call(ctx, w.target, page.Navigate, page.NavigateParams{URL: url})
		switch {
		case err != nil:
			return "", false, err
		case res.ErrorText != "":
			// Chrome may send Network.loadingFailed after this reply: the
			// failure is the tab's now, so the next call is refused with it.
			// When the event comes, the tab has no navigation under way with
			// its ID and ignores it.
			w.apply(tabstate.LoadingFailed{RequestID: string(res.LoaderID), ErrorText: res.ErrorText})
			return "", false, w.crashWins(ctx, &BlockedError{Reason: ErrNoDocument, URL: url, Detail: res.ErrorText})
		}
		// No loader: a same-document navigation, with nothing to load.
		return string(res.LoaderID), res.LoaderID == "", nil
	}
}

// Reload reloads the tab with Page.reload, which the browser side handles,
// and returns once the new document has committed, within
// Options.EvalTimeout, with the errors of [Watcher.Navigate]. It works on a
// crashed tab, one whose load failed, or one whose script is busy. A
// crashed tab loads the URL it had again: a renderer that died after its
// page committed but before it loaded leaves Chrome's history at the entry
// before, which Page.reload would bring back.
func (w *Watcher) Reload(ctx context.Context) error {
	if s := w.State(); s.Crashed && s.URL != "" {
		return w.load(ctx, "reload", w.navigateTo(s.URL))
	}
	return w.load(ctx, "reload", func(ctx context.Context) (string, bool, error) {
		_, err := cdp.Call(ctx, w.target, page.Reload, page.ReloadParams{})
		return "", false, err
	})
}

// load starts a main-frame navigation with start and waits for its commit.
// start returns the navigation's loader ID when Chrome gives one, and done
// when there is nothing to wait for.
func (w *Watcher) load(ctx context.Context, op string, start func(context.Context) (loader string, done bool, err error)) error {
	err := w.lifecycle(ctx, allowRecovery, func(ctx context.Context) error {
		w.mu.Lock()
		n0 := w.tab.Navigations()
		w.mu.Unlock()
		loader, done, err := start(ctx)
		if err != nil || done {
			return err
		}
		return w.awaitCommit(ctx, loader, n0)
	})
	var te *TimeoutError
	if errors.As(err, &te) {
		url := w.State().URL
		stopped := "loading stopped"
		if serr := w.stopLoading(); serr != nil {
			stopped = "stopping the load failed: " + serr.Error()
		}
		err = &TimeoutError{Op: op, Limit: te.Limit, Cause: TimeoutLoading,
			Doing: TimeoutLoading.Describe(url) + "; " + stopped}
		w.logf("tabguard: load timed out", err)
	}
	return err
}

// crashWins returns err, the refusal of a navigation whose load failed,
// unless the renderer died under it. A renderer that dies during a
// navigation makes Chrome abort it (net::ERR_ABORTED, or net::ERR_FAILED),
// and the abort, in the reply or in the events, may come before the crash
// event: the crash, the real reason, wins when it arrives within eventGrace.
func (w *Watcher) crashWins(ctx context.Context, err error) error {
	var be *BlockedError
	generic := errors.As(err, &be) && be.Reason == ErrNoDocument &&
		(be.Detail == "net::ERR_ABORTED" || be.Detail == "net::ERR_FAILED")
	timer := time.NewTimer(eventGrace)
	defer timer.Stop()
	for {
		w.mu.Lock()
		crashed, ch := w.tab.State().Crashed, w.changed
		w.mu.Unlock()
		switch {
		case crashed:
			return w.explain(w.blocked(ErrTabCrashed))
		case !generic:
			return err
		}
		select {
		case <-ch:
		case <-timer.C:
			return err
		case <-ctx.Done():
			return err
		}
	}
}

// awaitCommit waits until the navigation with loader ID loader has
// committed its document, or, when loader is empty or that navigation was
// replaced, a navigation that started after navigation n0 has and no other
// is under way, or the tab refuses the wait: its load failed, it crashed,
// a dialog opened, it closed. Chrome sent the navigation's start before its reply, and chromedp
// applied it before the reply came back (see apply), so any refusal the
// state shows now is this navigation's.
func (w *Watcher) awaitCommit(ctx context.Context, loader string, n0 uint64) error {
	for {
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return ErrWatcherClosed
		}
		committed, n := w.tab.Committed()
		navigating := w.tab.Navigating()
		started := loader != "" || w.tab.Navigations() > n0
		err := w.refusal()
		ch := w.changed
		w.mu.Unlock()
		switch {
		case loader != "" && committed == loader || n > n0 && !navigating:
			// A page that navigates itself (a reload as soon as parsed)
			// can commit a navigation it started after n0 and before ours:
			// that commit is not ours while ours is still under way.
			return err
		case err != nil && (started || !stale(err)):
			return w.crashWins(ctx, err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stale reports whether err is a refusal a recovery may end: a crash, a
// failed load, a dialog or a pause.
func stale(err error) bool {
	var be *BlockedError
	if !errors.As(err, &be) {
		return false
	}
	switch be.Reason {
	case ErrTabCrashed, ErrNoDocument, ErrDialogOpen, ErrPaused:
		return true
	}
	return false
}

// stopLoading stops the tab's pending load, from the browser side.
func (w *Watcher) stopLoading() error {
	ctx, cancel := context.WithTimeout(w.life, stopTimeout)
	defer cancel()
	return w.whenAttached(ctx, func() error {
		_, err := cdp.Call(ctx, w.target, page.StopLoading, cdp.Empty{})
		return err
	})
}

// Wait returns the tab's state once cond holds for it, waking on each change
// the tab's events bring, with no polling: for example
//
//	w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
//
// waits for the page's load event after [Watcher.Navigate]. Wait stops early
// when calls on the tab are refused and cond does not hold, returning the
// state with the [*BlockedError]. It returns ctx's error when ctx ends
// first, and [ErrWatcherClosed] when the watcher closes. cond runs under the
// watcher's lock: it must not call the watcher.
func (w *Watcher) Wait(ctx context.Context, cond func(TabState) bool) (TabState, error) {
	if ctx == nil || cond == nil {
		return TabState{}, fmt.Errorf("%w: nil context or condition", ErrInvalidArgument)
	}
	for {
		w.bw.lost()
		w.mu.Lock()
		s, ch, closed := w.tab.State(), w.changed, w.closed
		ok := !closed && cond(s)
		var err error
		if !ok && !closed {
			err = w.refusal()
		}
		w.mu.Unlock()
		switch {
		case closed:
			return s, ErrWatcherClosed
		case ok:
			return s, nil
		case errors.Is(err, ErrPaused):
			if err = w.confirm(ctx, err); err == nil {
				continue
			}
			return s, err
		case err != nil:
			return s, err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return s, ctx.Err()
		}
	}
}

// lifecycle runs fn, a call that changes the tab rather than reading it,
// under the deadline and cut-off of an eval; allow says which refusals it
// goes ahead despite.
func (w *Watcher) lifecycle(ctx context.Context, allow func(error) bool, fn func(context.Context) error) error {
	return w.guarded(ctx, allow, func(_ *inflight, tctx context.Context) error {
		err := w.whenAttached(tctx, func() error { return fn(tctx) })
		if err == nil {
			return nil
		}
		return w.explain(w.deadlineError(ctx, tctx, w.classify(err)))
	})
}

// whenAttached runs call, and again while Chrome answers "Not attached to
// an active page", which it does for a moment while a navigation swaps the
// tab's document: on the next change of the tab's state, or after a pause
// that doubles from 5 ms to 100 ms, until ctx ends.
func (w *Watcher) whenAttached(ctx context.Context, call func() error) error {
	pause := 5 * time.Millisecond
	for {
		w.mu.Lock()
		changed := w.changed
		w.mu.Unlock()
		err := call()
		if !notAttached(err) {
			return err
		}
		timer := time.NewTimer(pause)
		select {
		case <-changed:
		case <-timer.C:
			pause = min(2*pause, 100*time.Millisecond)
		case <-ctx.Done():
			timer.Stop()
			return err
		}
		timer.Stop()
	}
}

// allowRecovery lets a navigation go to a crashed tab or one with no
// document: that is how they recover.
func allowRecovery(err error) bool {
	return errors.Is(err, ErrTabCrashed) || errors.Is(err, ErrNoDocument)
}

// allowAnyLive lets a call go to any tab that still exists.
func allowAnyLive(err error) bool {
	return !errors.Is(err, ErrTabClosed) && !errors.Is(err, ErrBrowserGone) && !errors.Is(err, ErrTabDiscarded)
}
