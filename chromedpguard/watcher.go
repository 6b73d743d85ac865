package chromedpguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/tabstate"
)

// Options configures a [Watcher] or a [BrowserWatcher]. A nil *Options
// means all defaults.
type Options struct {
	// EvalTimeout bounds each Eval, Do, DOM, ReadDOM, Navigate, Reload and
	// HandleDialog call; zero means DefaultEvalTimeout.
	EvalTimeout time.Duration
	// Logger receives crashes, dialogs, refusals and timeouts; nil means silent.
	Logger *slog.Logger
	// TerminateOnTimeout makes an eval that times out while a script holds
	// the page's main thread call Runtime.terminateExecution before it
	// returns, so the tab answers the next eval. It stops whatever script
	// runs then, the page's own too, so it is off by default.
	TerminateOnTimeout bool
	// Dialogs says what happens to a JavaScript dialog: refused until
	// handled (DialogRefuse, the default), or accepted or dismissed as it
	// opens.
	Dialogs DialogPolicy
	// DOMNotice words the line Watcher.DOM appends to a cut page; nil means
	// DefaultNotice.
	DOMNotice Notice
	// Heartbeat, when above zero, makes the BrowserWatcher ask the browser
	// for its version (Browser.getVersion) at that interval, and fail every
	// watcher with ErrBrowserGone, calls in flight included, when an answer
	// does not come within the interval (1 s at most): it notices a
	// connection gone silent, and keeps an idle session alive in pools that
	// close idle connections. Zero, the default, sends nothing.
	Heartbeat time.Duration
	// URLs, when set, is the policy Navigate checks a URL against before
	// loading it; nil checks nothing.
	URLs *URLPolicy
}

// Watcher follows one chromedp tab through its CDP events and calls it with
// a deadline, refusing up front when the tab cannot answer and cutting calls
// in flight short when it stops answering. Its methods are safe for
// concurrent use. The caller should call Close when finished.
type Watcher struct {
	bw     *BrowserWatcher
	owned  bool // bw was started for this watcher alone
	target *chromedp.Target
	id     target.ID
	// detached is chromedp's channel of the tab's detach (chromedp.Detached):
	// its identity tells the tab's contexts from others.
	detached <-chan struct{}

	timeout   time.Duration
	terminate bool
	dialogs   DialogPolicy
	notice    Notice
	urls      *URLPolicy
	log       *slog.Logger
	// life is the watcher's own lifetime, which Close ends: the calls the
	// watcher makes of its own accord (probes, the dialog policy) derive
	// from it, as a rod page bound to a context does in the rod backend.
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	tab      tabstate.Tab
	closed   bool
	changed  chan struct{} // closed and replaced on every change of the state
	inflight map[*inflight]struct{}
	// terminations counts Runtime.terminateExecution calls, which also
	// stop the scripts of other evals in flight.
	terminations uint64
	// stuckDialog numbers a dialog the dialog policy failed to handle.
	stuckDialog uint64
}

// inflight is one call in progress, cut short with a cause when the tab dies.
type inflight struct {
	cancel       context.CancelCauseFunc
	navSeq       uint64 // the tab's navigation news when it was admitted
	terminations uint64 // w.terminations when it was admitted
}

// Watch starts following the tab of ctx, a chromedp context (from
// chromedp.NewContext) whose browser runs, and returns a Watcher that calls
// it. A context whose tab is not open yet gets it opened, as chromedp.Run
// does. opts may be nil. The caller should call Close when finished.
//
// Watch follows the browser's events for this tab alone; a program that
// watches many tabs of one browser should use [WatchBrowser], which has one
// listener for all of them. A tab that crashed before Watch is reported:
// Chrome answers Inspector.enable on a crashed target with
// Inspector.targetCrashed.
func Watch(ctx context.Context, opts *Options) (*Watcher, error) {
	if err := open(ctx); err != nil {
		return nil, err
	}
	bw, err := WatchBrowser(ctx, opts)
	if err != nil {
		return nil, err
	}
	w, err := bw.watch(ctx, true)
	if err != nil {
		_ = bw.Close()
		return nil, err
	}
	return w, nil
}

// open opens the tab of ctx if it has none, as chromedp.Run does.
func open(ctx context.Context) error {
	if ctx == nil || chromedp.FromContext(ctx) == nil {
		return fmt.Errorf("%w: not a chromedp context: pass one from chromedp.NewContext", ErrInvalidArgument)
	}
	if err := chromedp.Do(ctx); err != nil {
		return fmt.Errorf("watch tab: open it: %w", err)
	}
	return nil
}

// State returns what the watcher knows of the tab now. It makes no CDP call.
func (w *Watcher) State() TabState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tab.State()
}

// TargetID is the watched tab's target: what [BrowserWatcher.Tabs] lists it by.
func (w *Watcher) TargetID() target.ID { return w.id }

// Blocked reports whether an eval on the tab would be refused now: nil, or
// the [*BlockedError] that [Watcher.Eval] would return, or
// [ErrWatcherClosed], or ctx.Err() when ctx is already done. It makes no
// CDP call. A recovery made by any call on the tab's session that has
// returned already shows (see apply).
func (w *Watcher) Blocked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.confirm(ctx, w.refused())
}

// refused returns the watcher's refusal now, with no CDP call.
func (w *Watcher) refused() error {
	w.bw.lost()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWatcherClosed
	}
	return w.refusal()
}

// Close stops following the tab, fails calls still in flight with
// [ErrWatcherClosed], and waits for the watcher's goroutines to return. It
// leaves the tab itself alone: cancel its chromedp context to close it.
// Calling Close again does nothing.
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

// apply applies one event of the tab and acts on what it changed: calls in
// flight are cut short when the tab can no longer answer them, waiters are
// woken. It runs inside chromedp's loop that reads the tab's messages (or
// the browser's), so it never blocks and never makes a CDP call.
//
// No barrier is needed before a refusal, unlike in the rod backend (its
// sync.go): chromedp hands a tab's events and the replies to its commands
// to one goroutine per tab, in the order Chrome sent them, and that
// goroutine runs Listen funcs before it reads the next message. So when a
// call on the tab's session returns (Page.reload, Page.navigate,
// Page.handleJavaScriptDialog, through this watcher or chromedp.Run on the
// same tab), the events Chrome sent before its reply
// (Inspector.targetReloadedAfterCrash, Page.frameStartedNavigating,
// Page.javascriptDialogClosed) have been applied. The browser session's
// events (Target.targetCrashed, Target.detachedFromTarget) are applied by
// the goroutine that reads the socket, before it reads the message after
// them, so they never trail a reply that followed them either.
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
		w.log.Warn("tabguard: tab renderer crashed", "url", after.URL, "err", tabstate.Blocked(after))
	case after.DialogOpen && !before.DialogOpen && w.dialogs == DialogRefuse:
		w.log.Warn("tabguard: JavaScript dialog opened", "target", w.id, "err", tabstate.Blocked(after))
	case after.Paused && !before.Paused:
		w.log.Warn("tabguard: tab paused in the debugger", "target", w.id, "err", tabstate.Blocked(after))
	}
}

// refusal is the refusal of the tab's state under the dialog policy. w.mu
// must be held.
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

// admit admits a call when the tab may answer it, or allow accepts the
// refusal (a recovery call on a crashed tab), and tracks it so the tab's
// death can cut it short.
func (w *Watcher) admit(ctx context.Context, call *inflight, allow func(error) bool) error {
	w.bw.lost()
	err := w.enter(call, allow)
	if errors.Is(err, ErrPaused) {
		_ = w.confirm(ctx, err)
		err = w.enter(call, allow)
	}
	if err != nil {
		w.logf("tabguard: call refused", err)
	}
	return err
}

// confirm returns err, a refusal, as it stands once a pause has had its
// chance to end: Chrome sends Debugger.resumed after its reply to
// Debugger.resume (measured on Chromium 156 for the rod backend), so a pause
// waits up to eventGrace for it. Every other refusal is as fresh as it gets
// (see apply).
func (w *Watcher) confirm(ctx context.Context, err error) error {
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

// enter admits call unless the state refuses it and allow does not accept
// the refusal.
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
		w.log.Warn(msg, "target", w.id, "err", err)
	}
}
