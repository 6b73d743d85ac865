package tabguard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/tabguard/tabguard/tabstate"
)

// stopTimeout bounds Page.stopLoading after a load ran out of time; Chrome
// answers it from the browser side in milliseconds.
const stopTimeout = time.Second

// Navigate loads url in the tab and returns once the main frame has
// committed the new document, within Options.EvalTimeout. It works on a
// crashed tab and on one whose last load failed: it is how they recover.
//
// A load that fails gives [ErrNoDocument] naming the network error, and a
// renderer that dies during the load gives [ErrTabCrashed] as soon as it
// dies. A beforeunload dialog (or any dialog open before the call) gives
// [ErrDialogOpen], unless Options.Dialogs handles it. A closed tab or a
// lost browser gives [ErrTabClosed] or [ErrBrowserGone]. A load still
// pending at the deadline is stopped (Page.stopLoading), so the tab stays
// usable, and gives [ErrEvalTimeout]. A URL that only changes the fragment
// returns once Chrome has moved to it. A URL that Options.URLs does not
// allow gives [ErrURLBlocked], and nothing is loaded.
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
func (w *Watcher) navigateTo(url string) func(p *rod.Page) (string, bool, error) {
	return func(p *rod.Page) (string, bool, error) {
		res, err := proto.PageNavigate{URL: url}.Call(p)
		switch {
		case err != nil:
			return "", false, err
		case res.ErrorText != "":
			w.failed(p.GetContext(), string(res.LoaderID), res.ErrorText)
			return "", false, w.crashWins(p.GetContext(), &BlockedError{Reason: ErrNoDocument, URL: url, Detail: res.ErrorText})
		}
		// No loader: a same-document navigation, with nothing to load.
		return string(res.LoaderID), res.LoaderID == "", nil
	}
}

// failed makes the failure a Page.navigate reply reports the tab's own
// before the caller hears of it, so the next call is refused with it.
// Chrome sends the navigation's start, and most often Network.loadingFailed,
// before the reply, but the reply can overtake them on their way through
// the event loop: sync applies them first. A loadingFailed that Chrome
// sends after its reply is then applied here, from the reply; when it
// comes, the tab has no navigation under way with its ID and ignores it.
func (w *Watcher) failed(ctx context.Context, loader, errorText string) {
	if w.bw.sync(ctx) != nil {
		return // the refusal still reaches the caller; the events follow
	}
	w.apply(tabstate.LoadingFailed{RequestID: loader, ErrorText: errorText})
}

// Reload reloads the tab from the browser side and returns once the new
// document has committed, within Options.EvalTimeout, with the errors of
// [Watcher.Navigate]. Unlike rod's page.Reload, which runs JavaScript, it
// works on a crashed tab, one whose load failed, or one whose script is busy.
// A crashed tab loads the URL it had again: a renderer that died after its
// page committed but before it loaded leaves Chrome's history at the entry
// before, which Page.reload would bring back.
func (w *Watcher) Reload(ctx context.Context) error {
	if s := w.State(); s.Crashed && s.URL != "" {
		return w.load(ctx, "reload", w.navigateTo(s.URL))
	}
	return w.load(ctx, "reload", func(p *rod.Page) (string, bool, error) {
		return "", false, proto.PageReload{}.Call(p)
	})
}

// load starts a main-frame navigation with start and waits for its commit.
// start returns the navigation's loader ID when Chrome gives one, and done
// when there is nothing to wait for.
func (w *Watcher) load(ctx context.Context, op string, start func(*rod.Page) (loader string, done bool, err error)) error {
	var n0 uint64
	err := w.lifecycle(ctx, allowRecovery, func(p *rod.Page) error {
		w.mu.Lock()
		n0 = w.tab.Navigations()
		w.mu.Unlock()
		loader, done, err := start(p)
		if err != nil || done {
			return err
		}
		return w.awaitCommit(p.GetContext(), loader, n0)
	})
	var te *timeoutError
	if errors.As(err, &te) {
		url := w.State().URL
		stopped := "loading stopped"
		if serr := w.stopLoading(); serr != nil {
			stopped = "stopping the load failed: " + serr.Error()
		}
		err = &timeoutError{Op: op, Limit: te.Limit, Cause: TimeoutLoading,
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
// a dialog opened, it closed.
func (w *Watcher) awaitCommit(ctx context.Context, loader string, n0 uint64) error {
	// Chrome sent the navigation's start before its reply: once it is
	// applied, any refusal the state shows is this navigation's.
	if err := w.bw.sync(ctx); err != nil {
		return err
	}
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
			// Committed: a page, or Chrome's error page for a failed load
			// (Page.navigate does not always carry the net error). A page
			// that navigates itself (a reload as soon as parsed) can commit
			// a navigation it started after n0 and before ours: that commit
			// is not ours while ours is still under way.
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

// stopLoading stops the tab's pending load, from the browser side.
func (w *Watcher) stopLoading() error {
	ctx, cancel := context.WithTimeout(w.page.GetContext(), stopTimeout)
	defer cancel()
	return w.whenAttached(ctx, func() error { return proto.PageStopLoading{}.Call(w.page.Context(ctx)) })
}

// Wait returns the tab's state once cond holds for it, waking on each change
// the tab's events bring, with no polling: for example
//
//	w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
//
// waits for the page's load event after [Watcher.Navigate]. Wait stops early
// when calls on the tab are refused and cond does not hold: it returns the
// state with the [*BlockedError] (a crash, a failed load, a dialog, a closed
// tab), as [Watcher.Blocked] would. It returns ctx's error when ctx ends
// first, and [ErrWatcherClosed] when the watcher closes. cond runs under the
// watcher's lock: it must not call the watcher.
func (w *Watcher) Wait(ctx context.Context, cond func(TabState) bool) (TabState, error) {
	if ctx == nil || cond == nil {
		return TabState{}, fmt.Errorf("%w: nil context or condition", ErrInvalidArgument)
	}
	confirmed := false
	for {
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
		case stale(err) && !confirmed:
			// A recovery may have ended the refusal: make sure it did not.
			_ = w.confirm(ctx, err)
			confirmed = true
			continue
		case err != nil:
			return s, err
		}
		select {
		case <-ch:
			confirmed = false
		case <-ctx.Done():
			return s, ctx.Err()
		}
	}
}

// lifecycle runs fn, a call that changes the tab rather than reading it,
// under the deadline and cut-off of an eval; allow says which refusals it
// goes ahead despite.
func (w *Watcher) lifecycle(ctx context.Context, allow func(error) bool, fn func(*rod.Page) error) error {
	return w.guarded(ctx, allow, func(_ *inflight, tctx context.Context) error {
		err := w.whenAttached(tctx, func() error { return fn(w.page.Context(tctx)) })
		if err == nil {
			return nil
		}
		return w.explain(deadlineError(ctx, tctx, w.classify(err)))
	})
}

// whenAttached runs call, and again while Chrome answers "Not attached to
// an active page". It does so for a moment while a navigation swaps the
// tab's document: measured on Chromium 156, Page.reload and
// Page.handleJavaScriptDialog sent right after rod's Navigate returned get
// that answer until a few milliseconds after the commit event. So call is
// retried on the next change of the tab's state, or after a pause that
// doubles from 5 ms to 100 ms, until ctx ends.
func (w *Watcher) whenAttached(ctx context.Context, call func() error) error {
	pause := 5 * time.Millisecond
	for {
		w.mu.Lock()
		changed := w.changed
		w.mu.Unlock()
		err := call()
		if !errors.Is(err, cdp.ErrNotAttachedToActivePage) {
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
	return !errors.Is(err, ErrTabClosed) && !errors.Is(err, ErrBrowserGone)
}
