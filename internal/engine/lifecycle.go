package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// The engine's patience (Config.patience, 1 s by default, or more as the
// link shows) bounds Page.stopLoading after a load ran out of time; Chrome
// answers it from the browser side in milliseconds.

// Navigate loads url in the tab and returns once the main frame has
// committed the new document, within the eval timeout. It works on a
// crashed tab and on one whose last load failed: it is how they recover.
// The backends' Watcher.Navigate documents what it answers.
func (t *Tab) Navigate(ctx context.Context, url string) error {
	if !t.tracing(ctx) {
		return t.navigate(ctx, url)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpNavigate)
	err := t.navigate(ctx, url)
	t.callDone(ctx, rec, err)
	return err
}

// navigate is Navigate.
func (t *Tab) navigate(ctx context.Context, url string) error {
	if url == "" {
		return fmt.Errorf("%w: empty URL", tabstate.ErrInvalidArgument)
	}
	if p := t.b.cfg.URLs; p != nil {
		if err := p.Check(url); err != nil {
			return err
		}
	}
	return t.load(ctx, "navigate to "+url, t.navigateTo(url))
}

// navigateTo starts a navigation to url with Page.navigate.
func (t *Tab) navigateTo(url string) func(context.Context) (string, bool, error) {
	return func(ctx context.Context) (string, bool, error) {
		var res navigateResult
		n0, c0 := t.begun(), t.certificatesRefused()
		switch err := t.s.Call(ctx, "Page.navigate", navigateParams{URL: url}, &res); {
		case err != nil:
			return "", false, err
		case res.IsDownload:
			return "", false, t.downloaded(ctx, url, res.LoaderID, n0)
		case res.ErrorText == "net::ERR_ABORTED" && t.certificateSince(c0, url) != nil:
			// Refused for its certificate: Chrome committed nothing.
			if t.b.sync(ctx) == nil {
				t.Apply(tabstate.LoadingFailed{RequestID: res.LoaderID, ErrorText: res.ErrorText, Canceled: true})
			}
			return "", false, t.certificateSince(c0, url)
		case res.ErrorText != "":
			t.failed(ctx, res.LoaderID, res.ErrorText)
			return "", false, t.crashWins(ctx, t.b.cfg.Advice.Refusal(tabstate.LoadFailure(url, res.ErrorText)))
		}
		// No loader: a same-document navigation, with nothing to load.
		return res.LoaderID, res.LoaderID == "", nil
	}
}

// failed makes the failure a Page.navigate reply reports the tab's own
// before the caller hears of it, so the next call is refused with it.
// Chrome sends the navigation's start, and most often Network.loadingFailed,
// before the reply; on a driver whose replies can overtake events, sync
// applies them first. A loadingFailed that Chrome sends after its reply is
// applied here, from the reply; when it comes, the tab has no navigation
// under way with its ID and ignores it.
func (t *Tab) failed(ctx context.Context, loader, errorText string) {
	if t.b.sync(ctx) != nil {
		return // the refusal still reaches the caller; the events follow
	}
	t.Apply(tabstate.LoadingFailed{RequestID: loader, ErrorText: errorText})
}

// Reload reloads the tab from the browser side and returns once the new
// document has committed, with the errors of Navigate. It works on a
// crashed tab, one whose load failed, or one whose script is busy. A
// crashed tab loads the URL it had again: a renderer that died after its
// page committed but before it loaded leaves Chrome's history at the entry
// before, which Page.reload would bring back.
func (t *Tab) Reload(ctx context.Context) error {
	if !t.tracing(ctx) {
		return t.reload(ctx)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpReload)
	err := t.reload(ctx)
	t.callDone(ctx, rec, err)
	return err
}

// reload is Reload.
func (t *Tab) reload(ctx context.Context) error {
	if s := t.State(); s.Crashed && s.URL != "" {
		return t.load(ctx, "reload", t.navigateTo(s.URL))
	}
	return t.load(ctx, "reload", func(ctx context.Context) (string, bool, error) {
		return "", false, t.s.Call(ctx, "Page.reload", nil, nil)
	})
}

// load starts a main-frame navigation with start and waits for its
// commit. start returns the navigation's loader ID when Chrome gives one,
// and done when there is nothing to wait for.
func (t *Tab) load(ctx context.Context, op string, start func(context.Context) (loader string, done bool, err error)) error {
	signIns := t.signInsRefused()
	err := t.change(ctx, op, allowRecovery, func(ctx context.Context) error {
		t.mu.Lock()
		n0 := t.tab.Navigations()
		c0, _ := t.tab.Committed()
		t.mu.Unlock()
		loader, done, err := start(ctx)
		if err != nil {
			return t.crashWins(ctx, err)
		}
		if done {
			return nil
		}
		if err := t.awaitCommit(ctx, loader, n0, c0); err != nil {
			return err
		}
		// The server's answer to a refused sign-in committed in its place.
		return t.signInSince(signIns)
	})
	var te *tabstate.TimeoutError
	if errors.As(err, &te) {
		url := t.State().URL
		stopped := "loading stopped"
		if serr := t.stopLoading(); serr != nil {
			stopped = "stopping the load failed: " + serr.Error()
		}
		err = t.b.cfg.Advice.Words(&tabstate.TimeoutError{Op: op, Limit: te.Limit, Cause: tabstate.TimeoutLoading,
			Doing: tabstate.TimeoutLoading.Describe(url) + ": " + stopped})
		t.logf("tabguard: load timed out", err)
	}
	return err
}

// crashWins returns err, the failure of a navigation, unless the renderer
// died under it. A renderer that dies during a navigation makes Chrome
// abort it (net::ERR_ABORTED, or net::ERR_FAILED), or answer the command
// "Not attached to an active page", and the abort, in the reply or in the
// events, may come before the crash event: the crash, the real reason,
// wins when it arrives within the event grace.
func (t *Tab) crashWins(ctx context.Context, err error) error {
	be, _ := err.(*tabstate.BlockedError)
	f := t.b.classify(err)
	generic := be != nil && be.Reason == tabstate.ErrNoDocument &&
		(be.Detail == "net::ERR_ABORTED" || be.Detail == "net::ERR_FAILED") ||
		f.Kind == Protocol && f.Code == -32000 && f.Message == "Not attached to an active page"
	wait := time.Duration(0)
	if generic {
		wait = t.b.cfg.grace()
	}
	crashed := func() bool { return t.tab.State().Crashed }
	if t.await(ctx, wait, crashed) {
		return t.explain(t.blocked(tabstate.ErrTabCrashed))
	}
	return err
}

// awaitCommit waits until the navigation with loader ID loader has
// committed its document, or, when loader is empty or that navigation was
// replaced, a navigation that started after navigation n0 has and no other
// is under way, or the tab refuses the wait: its load failed, it crashed,
// a dialog opened, it closed.
func (t *Tab) awaitCommit(ctx context.Context, loader string, n0 uint64, c0 string) error {
	// Chrome sent the navigation's start before its reply: once it is
	// applied, any refusal the state shows is this navigation's.
	if err := t.b.sync(ctx); err != nil {
		return err
	}
	for {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return tabstate.ErrWatcherClosed
		}
		committed, n := t.tab.Committed()
		navigating := t.tab.Navigating()
		started := loader != "" || t.tab.Navigations() > n0
		// A driver whose events lack Page.frameStartedNavigating (chromedp
		// before v0.13) numbers no navigation: there, a new document is
		// the commit of a Page.reload, which answers no loader ID.
		unnumbered := t.tab.Navigations() == 0 && loader == "" && committed != "" && committed != c0
		err := t.refusal()
		ch := t.changed
		t.mu.Unlock()
		switch {
		case loader != "" && committed == loader || n > n0 && !navigating || unnumbered:
			// Committed: a page, or Chrome's error page for a failed load
			// (Page.navigate does not always carry the net error). A page
			// that navigates itself (a reload as soon as parsed) can commit
			// a navigation it started after n0 and before ours: that commit
			// is not ours while ours is still under way.
			return err
		case err != nil && (started || !stale(err)):
			return t.crashWins(ctx, err)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stopLoading stops the tab's pending load, from the browser side.
func (t *Tab) stopLoading() error {
	ctx, cancel := context.WithTimeout(t.life, t.b.patience())
	defer cancel()
	return t.whenAttached(ctx, func() error { return t.s.Call(ctx, "Page.stopLoading", nil, nil) })
}

// Wait returns the tab's state once cond holds for it, waking on each
// change the tab's events bring, with no polling. It stops early when calls
// on the tab are refused and cond does not hold, returning the state with
// the refusal. It is bounded as every call is, by ctx's deadline or else
// the eval timeout: then, or when ctx's deadline passes, it answers a
// [*tabstate.TimeoutError] that says what the tab was doing (the busy
// probes ask the page shortly before, as for an eval), the milestones its
// document reached, and the ones still missing (waited). It returns ctx's
// error when ctx is canceled, and ErrWatcherClosed when the Tab closes.
// cond runs under the Tab's lock.
func (t *Tab) Wait(ctx context.Context, cond func(tabstate.State) bool) (tabstate.State, error) {
	if !t.tracing(ctx) {
		return t.wait(ctx, cond)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpWait)
	s, err := t.wait(ctx, cond)
	t.callDone(ctx, rec, err)
	return s, err
}

// OpWait names Wait in a timeout.
const OpWait = "wait"

// wait is Wait.
func (t *Tab) wait(ctx context.Context, cond func(tabstate.State) bool) (tabstate.State, error) {
	if ctx == nil || cond == nil {
		return tabstate.State{}, fmt.Errorf("%w: nil context or condition", tabstate.ErrInvalidArgument)
	}
	cctx, cut := context.WithCancelCause(ctx)
	call := &inflight{cut: cut}
	t.arm(ctx, call, true)
	s, done, err := t.waitOnce(cctx, cond)
	late := !done && timedOut(ctx, cctx, cctx.Err())
	call.clock.stop(late)
	cut(nil)
	switch {
	case done:
		return s, err
	case !late:
		return s, ctx.Err()
	}
	te := t.timedOut(&call.clock, OpWait)
	s = t.State()
	te.Doing, te.Milestones = waited(te.Doing, s, te.Cause), s.Milestones
	t.logf("tabguard: wait timed out", te)
	return s, te
}

// waitOnce checks cond on the tab's state until it holds, the tab refuses
// calls, or the Tab closes (done), and returns the state with the answer;
// otherwise, when no change came before ctx ended, done is false.
func (t *Tab) waitOnce(ctx context.Context, cond func(tabstate.State) bool) (s tabstate.State, done bool, err error) {
	confirmed := false
	for {
		t.b.lost()
		t.mu.Lock()
		s, ch, closed := t.tab.State(), t.changed, t.closed
		ok := !closed && cond(s)
		var err error
		if !ok && !closed {
			err = t.refusal()
		}
		t.mu.Unlock()
		switch {
		case closed:
			return s, true, tabstate.ErrWatcherClosed
		case ok:
			return s, true, nil
		case stale(err) && !confirmed:
			// A recovery may have ended the refusal: make sure it did not.
			_ = t.confirm(ctx, err)
			confirmed = true
			continue
		case err != nil:
			t.noteRefused(ctx, confirmed)
			return s, true, err
		}
		select {
		case <-ch:
			confirmed = false
		case <-ctx.Done():
			return s, false, nil
		}
	}
}

// whenAttached runs call, and again while Chrome answers "Not attached to
// an active page". It does so for a moment while a navigation swaps the
// tab's document: measured on Chromium 156, Page.reload and
// Page.handleJavaScriptDialog sent right after a navigation returned get
// that answer until a few milliseconds after the commit event. So call is
// retried on the next change of the tab's state, or after a pause that
// doubles from 5 ms to 100 ms, until ctx ends.
func (t *Tab) whenAttached(ctx context.Context, call func() error) error {
	pause := 5 * time.Millisecond
	for {
		t.mu.Lock()
		changed := t.changed
		t.mu.Unlock()
		err := call()
		if !t.protocolError(err, notAttached) {
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

// notAttached is Chrome's answer while a navigation swaps the tab's document.
const notAttached = "Not attached to an active page"
