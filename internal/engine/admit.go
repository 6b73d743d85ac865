package engine

import (
	"context"
	"errors"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// inflight is one call in progress, cut short with a cause when the tab
// dies; it carries the call's clock.
type inflight struct {
	cut          context.CancelCauseFunc
	browserSide  bool   // the browser process answers it: only the tab's end cuts it
	navSeq       uint64 // the tab's navigation news when it was admitted
	terminations uint64 // t.terminations when it was admitted
	lnaSeq       uint64 // t.lna.n when it was admitted
	choosers     uint64 // t.choosers when it was admitted
	downloads    uint64 // t.downloadsBegun when it was admitted
	navigations  uint64 // t.tab.Navigations() when it was admitted
	drops        uint64 // the connection's drops when it was admitted
	// onDownload says a download the tab begins cuts the call short
	// when a navigation of the main frame began since (download.go).
	onDownload bool
	clock      clock
	// frame is the iframe a call in a frame runs in; frameDoc and
	// frameOOP are the document it runs in (0 until it has one: it waits
	// for the frame's first), and waiting says it waited for one.
	frame    string
	frameDoc uint64
	frameOOP bool
	waiting  bool
	// print is the tab's print call on its way when the call was
	// admitted, if any (print.go).
	print chan struct{}
}

// stale reports whether err is a refusal that a recovery may have ended:
// a crash (of the tab or of a frame's own renderer), a failed load, a
// dialog or a pause. A closed tab or a lost
// browser stays so.
func stale(err error) bool {
	be, ok := err.(*tabstate.BlockedError)
	if !ok {
		return false
	}
	switch be.Reason {
	case tabstate.ErrTabCrashed, tabstate.ErrNoDocument, tabstate.ErrDialogOpen, tabstate.ErrPaused,
		tabstate.ErrSignInRequired, tabstate.ErrCertificate, tabstate.ErrClientCertificate, tabstate.ErrFrameCrashed:
		return true
	}
	return false
}

// admit admits a call when the tab may answer it, or allow accepts the
// refusal (a recovery call on a crashed tab), and tracks it so the tab's
// death can cut it short. A refusal that may be stale is checked against
// every event Chrome sent so far before it is returned.
func (t *Tab) admit(ctx context.Context, call *inflight, allow func(error) bool) error {
	t.b.lost()
	limit, _, _ := t.bound(ctx, time.Now())
	if err := t.b.awaitResume(ctx, limit); err != nil {
		return err
	}
	err := t.enter(call, allow)
	barrier := stale(err)
	if barrier {
		_ = t.confirm(ctx, err) // then the state is as fresh as it gets
		err = t.enter(call, allow)
	}
	if err != nil {
		t.noteRefused(ctx, barrier)
		err = t.explain(err) // a crash reads the same refused as cut short
		t.logf("tabguard: call refused", err)
	}
	return err
}

// confirm returns err, a refusal, once it is sure the refusal is not
// stale: before a refusal that a recovery may have ended, it has the
// driver apply every event Chrome sent so far (Syncer). Chrome sends
// Debugger.resumed after its reply to Debugger.resume (measured on
// Chromium 156), so a pause also waits up to the event grace for it. It returns
// the refusal as it stands then, nil if there is none.
func (t *Tab) confirm(ctx context.Context, err error) error {
	if !stale(err) {
		return err
	}
	if t.b.sync(ctx) == nil {
		err = t.refused()
	}
	if !errors.Is(err, tabstate.ErrPaused) {
		return err
	}
	t.await(ctx, t.b.cfg.grace(), func() bool { return !t.tab.State().Paused })
	return t.refused()
}

// enter admits call unless the tab's state refuses it and allow does not
// accept the refusal.
func (t *Tab) enter(call *inflight, allow func(error) bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return tabstate.ErrWatcherClosed
	}
	if err := t.refusal(); err != nil && (allow == nil || !allow(err)) {
		return err
	}
	if call.frame != "" {
		if err := t.frameRefusal(call.frame); err != nil {
			return err
		}
	}
	call.navSeq, call.terminations, call.lnaSeq, call.choosers = t.tab.Seq(), t.terminations, t.lna.n, t.choosers.Load()
	call.downloads, call.navigations, call.print = t.downloadsBegun, t.tab.Navigations(), t.printDone
	call.drops = t.b.drops()
	t.inflight[call] = struct{}{}
	return nil
}

func (t *Tab) leave(call *inflight) {
	t.mu.Lock()
	delete(t.inflight, call)
	t.mu.Unlock()
}

// failInflight cuts every call in flight short with cause, but for
// browser-side calls when cause is the renderer's (a crash, a dialog, a
// pause): the browser process answers them all the same. t.mu must be held.
func (t *Tab) failInflight(cause error) {
	renderer := allowAnyLive(cause) && !errors.Is(cause, tabstate.ErrWatcherClosed)
	for call := range t.inflight {
		if call.browserSide && renderer {
			continue
		}
		call.cut(cause)
		delete(t.inflight, call)
	}
}

// allowRecovery lets a navigation go to a crashed tab or one with no
// document: that is how they recover.
func allowRecovery(err error) bool {
	return errors.Is(err, tabstate.ErrTabCrashed) || errors.Is(err, tabstate.ErrNoDocument)
}

// allowAnyLive lets a call go to any tab that still exists: not closed,
// not discarded (its replacement holds every call until it is revived),
// not in a lost browser.
func allowAnyLive(err error) bool {
	return !errors.Is(err, tabstate.ErrTabClosed) && !errors.Is(err, tabstate.ErrBrowserGone) &&
		!errors.Is(err, tabstate.ErrTabDiscarded)
}
