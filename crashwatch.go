package tabguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/tabguard/tabguard/tabstate"
)

// ErrWatcherClosed reports a call on a [Watcher] after its Close.
var ErrWatcherClosed = tabstate.ErrWatcherClosed

// Options configures a [Watcher] or a [BrowserWatcher]. A nil *Options means
// all defaults.
type Options struct {
	// EvalTimeout bounds each Eval, DOM, Do, Navigate, Reload and
	// HandleDialog call; zero means DefaultEvalTimeout.
	EvalTimeout time.Duration
	// Logger receives crashes, dialogs, refusals and timeouts; nil means silent.
	Logger *slog.Logger
	// TerminateOnTimeout makes an eval that times out while a script holds
	// the page's main thread (a while(true), a long synchronous loop) call
	// Runtime.terminateExecution before it returns, so the tab answers the
	// next eval. Without it a deadline stops only the wait: the script runs
	// on, and every later eval on the tab times out too. It is off by
	// default because it stops whatever script runs at that moment, the
	// page's own as well as the eval's, which may leave the page half
	// updated. Turn it on when the program owns the tab (a crawler, a test
	// runner) and a stuck script must not take the tab with it.
	TerminateOnTimeout bool
	// Dialogs says what happens to a JavaScript dialog (alert, confirm,
	// prompt, beforeunload): refused until handled (DialogRefuse, the
	// default), or accepted or dismissed as it opens.
	Dialogs DialogPolicy
	// DOMNotice words the line Watcher.DOM appends to a cut page; nil means
	// DefaultNotice. Set it when the cap reaches users under another name.
	DOMNotice Notice
	// Heartbeat, when above zero, makes the BrowserWatcher ask the browser
	// for its version (Browser.getVersion) at that interval, and fail every
	// watcher of the browser with ErrBrowserGone, calls in flight included,
	// when an answer does not come within the interval (1 s at most). It
	// notices a connection gone silent, as behind a proxy that stops
	// forwarding, which no error reports otherwise, and it keeps an idle
	// session alive in pools that close connections with no traffic. Zero,
	// the default, sends nothing: for a browser on this machine the socket
	// itself tells when it ends. A BrowserWatcher has one heartbeat for all
	// its tabs; Watch, which serves one tab, runs one of its own.
	Heartbeat time.Duration
	// URLs, when set, is the policy Navigate and BrowserWatcher.Open check
	// a URL against before loading it; nil checks nothing.
	URLs *URLPolicy
}

// Watcher follows one tab through its CDP events and evaluates on it with a
// deadline, refusing up front when the tab cannot answer. Its methods are
// safe for concurrent use.
type Watcher struct {
	bw    *BrowserWatcher
	owned bool      // bw was started for this watcher alone
	page  *rod.Page // bound to the watcher's own context, derived from the page's

	timeout   time.Duration
	terminate bool
	dialogs   DialogPolicy
	notice    Notice
	urls      *URLPolicy
	log       *slog.Logger
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu       sync.Mutex
	tab      tabstate.Tab
	closed   bool
	changed  chan struct{} // closed and replaced on every change of the state
	inflight map[*inflight]struct{}
	// terminations counts Runtime.terminateExecution calls, which also
	// stop the scripts of other evals in flight.
	terminations uint64
	// stuckDialog numbers a dialog that the dialog policy failed to handle,
	// which is then refused as under DialogRefuse.
	stuckDialog uint64
}

// inflight is one call in progress, cut short with a cause when the tab dies.
type inflight struct {
	cancel       context.CancelCauseFunc
	navSeq       uint64 // the tab's navigation news when it was admitted
	terminations uint64 // w.terminations when it was admitted
}

// Watch starts following page and returns a Watcher that evaluates on it.
// opts may be nil. The caller should call Close when finished.
//
// Watch subscribes to the browser's events for this tab alone, then learns
// the tab's current state (see [Watcher] for what it asks). A program that
// watches many tabs of one browser should use [WatchBrowser]: each Watch
// costs a subscription to the browser's whole event stream and a goroutine
// that reads it, where a BrowserWatcher has one of each for all its tabs.
//
// Watch enables the Inspector and Network domains on the tab's session (and
// leaves them on, since other subscribers may rely on them). A tab that
// crashed before Watch is reported, because Chrome answers Inspector.enable
// on a crashed target with Inspector.targetCrashed. Watch reads the current
// URL from the browser side, which answers even when the renderer does not.
// It returns within a few milliseconds on a healthy tab; on a tab whose
// renderer is busy (a runaway script, an open dialog) it gives up asking
// the renderer after about a second. A JavaScript dialog that opened before
// Watch cannot be learned under DialogRefuse (Chrome replays no event for
// it), so evals then time out as on a busy page; under DialogAccept or
// DialogDismiss, Watch handles it.
//
// A nil page gives [ErrInvalidArgument]; a closed tab, or a browser that went
// away, gives a [*BlockedError] with [ErrTabClosed] or [ErrBrowserGone].
func Watch(page *rod.Page, opts *Options) (*Watcher, error) {
	if err := checkPage(page); err != nil {
		return nil, err
	}
	bw, err := WatchBrowser(page.Browser(), opts)
	if err != nil {
		return nil, err
	}
	w, err := bw.watch(page, true)
	if err != nil {
		_ = bw.Close()
		return nil, err
	}
	return w, nil
}

func checkPage(page *rod.Page) error {
	if page == nil || page.GetContext() == nil || page.Browser() == nil {
		return fmt.Errorf("%w: nil or unconnected page: pass a page from a connected rod.Browser", ErrInvalidArgument)
	}
	if page.GetContext().Err() != nil {
		return &BlockedError{Reason: ErrTabClosed}
	}
	return nil
}

// watch makes a Watcher of page fed by bw; owned says bw is its own.
func (bw *BrowserWatcher) watch(page *rod.Page, owned bool) (*Watcher, error) {
	if err := checkPage(page); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(page.GetContext())
	o := bw.opts
	w := &Watcher{
		bw:        bw,
		owned:     owned,
		page:      page.Context(ctx),
		timeout:   o.EvalTimeout,
		terminate: o.TerminateOnTimeout,
		dialogs:   o.Dialogs,
		notice:    o.DOMNotice,
		urls:      o.URLs,
		log:       o.Logger,
		cancel:    cancel,
		changed:   make(chan struct{}),
		inflight:  map[*inflight]struct{}{},
	}
	w.tab.MainFrame = string(page.FrameID)
	if w.timeout <= 0 {
		w.timeout = DefaultEvalTimeout
	}
	// Register before the first probe, so no event in between is lost.
	if err := bw.add(w); err != nil {
		cancel()
		return nil, err
	}
	if err := w.start(ctx); err != nil {
		w.owned = false // the caller closes its own BrowserWatcher
		_ = w.Close()
		return nil, err
	}
	return w, nil
}

// State returns what the watcher knows of the tab now. It makes no CDP call,
// so it may trail a change that a call made a moment ago: [Watcher.Blocked]
// and every guarded call see such a change.
func (w *Watcher) State() TabState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tab.State()
}

// Blocked reports whether an eval on the tab would be refused now: nil, or
// the [*BlockedError] that [Watcher.Eval] would return, or [ErrWatcherClosed],
// or ctx.Err() when ctx is already done. It makes no CDP call on a tab the
// events say is healthy. Before it reports a refusal that a recovery may
// have ended (a crash, a failed load, a dialog, a pause), it makes sure
// every event Chrome sent so far has been applied, so a recovery made by
// any call that has returned shows at once.
func (w *Watcher) Blocked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.confirm(ctx, w.refused())
}

// refused returns the watcher's refusal now, with no CDP call.
func (w *Watcher) refused() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWatcherClosed
	}
	return w.refusal()
}

// Close stops following the tab, fails calls still in flight with
// [ErrWatcherClosed], and waits for the watcher's goroutines to return. It
// leaves the tab itself alone. Calling Close again does nothing.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		w.failInflight(ErrWatcherClosed)
		w.broadcast()
	}
	w.mu.Unlock()
	w.bw.remove(w)
	w.cancel()
	w.wg.Wait()
	if w.owned {
		return w.bw.Close()
	}
	return nil
}

// apply applies one event of the tab and acts on what it changed: evals in
// flight are cut short when the tab can no longer answer them, waiters are
// woken. It runs on the BrowserWatcher's event loop and never blocks it.
func (w *Watcher) apply(ev tabstate.Event) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	before := w.tab.State()
	change := w.tab.Apply(ev)
	if change == 0 {
		w.mu.Unlock()
		return
	}
	if change&tabstate.Cut != 0 {
		if err := w.refusal(); err != nil {
			w.failInflight(err)
		}
	}
	if d, ok := ev.(tabstate.DialogOpening); ok && w.dialogs != DialogRefuse {
		w.handleLater(d, w.tab.Dialogs())
	}
	w.broadcast()
	after := w.tab.State()
	w.mu.Unlock()
	w.noted(before, after)
}

// noted logs what an event did that the program should hear of.
func (w *Watcher) noted(before, after TabState) {
	if w.log == nil {
		return
	}
	switch {
	case after.Crashed && after.CrashReason != "" && (!before.Crashed || before.CrashReason == ""):
		// Once, when Target.targetCrashed brings the status, right after
		// Inspector.targetCrashed.
		w.log.Warn("tabguard: tab renderer crashed", "url", after.URL, "err", EvalBlockedReason(after))
	case after.DialogOpen && !before.DialogOpen && w.dialogs == DialogRefuse:
		w.log.Warn("tabguard: JavaScript dialog opened", "target", w.page.TargetID, "err", EvalBlockedReason(after))
	case after.Paused && !before.Paused:
		w.log.Warn("tabguard: tab paused in the debugger", "target", w.page.TargetID, "err", EvalBlockedReason(after))
	}
}

// refusal is the refusal of the tab's state under the dialog policy: a
// dialog that the policy is handling is no reason to refuse. w.mu must be held.
func (w *Watcher) refusal() error {
	s := w.tab.State()
	if s.DialogOpen && w.dialogs != DialogRefuse && w.stuckDialog != w.tab.Dialogs() {
		s.DialogOpen = false
	}
	return tabstate.Blocked(s)
}

// broadcast wakes every Wait. w.mu must be held.
func (w *Watcher) broadcast() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// stale reports whether err is a refusal that a recovery may have ended:
// a crash, a failed load, a dialog or a pause. A closed tab or a lost
// browser stays so.
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

// admit admits a call when the tab may answer it, or allow accepts the
// refusal (a recovery call on a crashed tab), and tracks it so a crash can
// cut it short. A refusal that may be stale is checked against every event
// Chrome sent so far before it is returned.
func (w *Watcher) admit(ctx context.Context, call *inflight, allow func(error) bool) error {
	err := w.enter(call, allow)
	if stale(err) {
		_ = w.confirm(ctx, err) // then the state is as fresh as it gets
		err = w.enter(call, allow)
	}
	if err != nil {
		w.logf("tabguard: call refused", err)
	}
	return err
}

// confirm returns err, a refusal, once it is sure the refusal is not stale:
// before a refusal that a recovery may have ended, it applies every event
// Chrome sent so far (see sync). Chrome sends Debugger.resumed after its
// reply to Debugger.resume, though (measured on Chromium 156), so a pause
// also waits up to eventGrace for it. It returns the refusal as it stands
// then, nil if there is none.
func (w *Watcher) confirm(ctx context.Context, err error) error {
	if !stale(err) {
		return err
	}
	if w.bw.sync(ctx) == nil {
		err = w.refused()
	}
	if !errors.Is(err, ErrPaused) {
		return err
	}
	timer := time.NewTimer(eventGrace)
	defer timer.Stop()
	for {
		w.mu.Lock()
		paused, ch := w.tab.State().Paused, w.changed
		w.mu.Unlock()
		if !paused {
			return w.refused()
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

// enter admits call unless the tab's state refuses it and allow does not
// accept the refusal.
func (w *Watcher) enter(call *inflight, allow func(error) bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWatcherClosed
	}
	if err := w.refusal(); err != nil && (allow == nil || !allow(err)) {
		return err
	}
	call.navSeq, call.terminations = w.tab.Seq(), w.terminations
	w.inflight[call] = struct{}{}
	return nil
}

func (w *Watcher) leave(call *inflight) {
	w.mu.Lock()
	delete(w.inflight, call)
	w.mu.Unlock()
}

// failInflight cuts every call in flight short with cause. w.mu must be held.
func (w *Watcher) failInflight(cause error) {
	for call := range w.inflight {
		call.cancel(cause)
		delete(w.inflight, call)
	}
}

func (w *Watcher) logf(msg string, err error) {
	if w.log != nil {
		w.log.Warn(msg, "target", w.page.TargetID, "err", err)
	}
}
