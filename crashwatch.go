package tabguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// ErrWatcherClosed reports a call on a [Watcher] after its Close.
var ErrWatcherClosed = errors.New("watcher is closed")

// probeTimeout bounds each CDP call Watch makes to learn the tab's state.
const probeTimeout = time.Second

// Options configures a [Watcher]. A nil *Options means all defaults.
type Options struct {
	// EvalTimeout bounds each Eval and DOM call; zero means DefaultEvalTimeout.
	EvalTimeout time.Duration
	// Logger receives crashes, refusals and timeouts; nil means silent.
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
}

// Watcher follows one tab through its CDP target and load events and
// evaluates on it with a deadline, refusing up front when the tab cannot
// answer. Its methods are safe for concurrent use.
type Watcher struct {
	page      *rod.Page // bound to the watcher's own context, derived from the page's
	timeout   time.Duration
	terminate bool
	log       *slog.Logger
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu         sync.Mutex
	state      TabState
	closed     bool
	navSeq     uint64 // counts navigation news, so a late probe never overwrites it
	mainFrame  proto.PageFrameID
	docRequest proto.NetworkRequestID
	beforeLoad TabState // the state when docRequest started, for a cancelled load
	inflight   map[*inflight]struct{}
	// terminations counts Runtime.terminateExecution calls, which also
	// stop the scripts of other evals in flight.
	terminations uint64
}

// inflight is one eval in progress, cut short with a cause when the tab dies.
type inflight struct {
	cancel       context.CancelCauseFunc
	navSeq       uint64 // w.navSeq when it was admitted
	terminations uint64 // w.terminations when it was admitted
}

// Watch starts following page and returns a Watcher that evaluates on it.
// opts may be nil. The caller should call Close when finished.
//
// Watch subscribes to the tab's events before it looks at the tab, then
// enables the Inspector and Network domains on the tab's session (and
// leaves them on, since other subscribers may rely on them). A tab that
// crashed before Watch is reported, because Chrome answers Inspector.enable
// on a crashed target with Inspector.targetCrashed. Watch reads the current
// URL from the browser side, which answers even when the renderer does not.
// It returns within a few milliseconds on a healthy tab; on a tab whose
// renderer is busy (a runaway script, an open dialog) it gives up asking
// the renderer after about a second. A JavaScript dialog that opened before
// Watch cannot be learned (Chrome holds every page command while it is open
// and replays no event), so evals then time out as on a busy page; dialogs
// that open later are refused with [ErrDialogOpen].
//
// A nil page gives [ErrInvalidArgument]; a closed tab, or a browser that went
// away, gives a [*BlockedError] with [ErrTabClosed] or [ErrBrowserGone].
func Watch(page *rod.Page, opts *Options) (*Watcher, error) {
	if page == nil || page.GetContext() == nil || page.Browser() == nil {
		return nil, fmt.Errorf("%w: nil or unconnected page: pass a page from a connected rod.Browser", ErrInvalidArgument)
	}
	if page.GetContext().Err() != nil {
		return nil, &BlockedError{Reason: ErrTabClosed}
	}
	if opts == nil {
		opts = &Options{}
	}
	ctx, cancel := context.WithCancel(page.GetContext())
	w := &Watcher{
		page:      page.Context(ctx),
		timeout:   opts.EvalTimeout,
		terminate: opts.TerminateOnTimeout,
		log:       opts.Logger,
		cancel:    cancel,
		mainFrame: page.FrameID,
		inflight:  map[*inflight]struct{}{},
	}
	if w.timeout <= 0 {
		w.timeout = DefaultEvalTimeout
	}
	// Subscribe before the first probe, so no event in between is lost.
	pageEvents := w.page.Event()
	browserEvents := w.page.Browser().Context(ctx).Event()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.follow(ctx, pageEvents, browserEvents)
	}()
	if err := w.start(ctx); err != nil {
		_ = w.Close()
		return nil, err
	}
	return w, nil
}

// start learns the tab's state as it is now.
func (w *Watcher) start(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	p := w.page.Context(pctx)
	if err := (proto.InspectorEnable{}).Call(p); err != nil {
		return w.startError("enable the Inspector domain", err)
	}
	info, err := proto.TargetGetTargetInfo{TargetID: w.page.TargetID}.Call(w.page.Browser().Context(pctx))
	if err != nil {
		return w.startError("read the target info", err)
	}
	// While a first navigation is pending, the target already shows the new
	// URL but the history has only about:blank: that mismatch means nothing
	// is committed yet. A tab too new to have history is in its first load.
	hist, err := proto.PageGetNavigationHistory{}.Call(p)
	if err != nil && !errors.Is(err, cdp.ErrNotAttachedToActivePage) {
		return w.startError("read the navigation history", err)
	}
	committed := err == nil && hist.CurrentIndex >= 0 && hist.CurrentIndex < len(hist.Entries) &&
		hist.Entries[hist.CurrentIndex].URL == info.TargetInfo.URL

	w.mu.Lock()
	if w.navSeq == 0 {
		w.state.URL, w.state.Committed = info.TargetInfo.URL, committed
	}
	seq, crashed := w.navSeq, w.state.Crashed
	w.mu.Unlock()

	// Renderer-bound calls are held while the tab is crashed, in its first
	// load or busy. On a crashed or loading tab Network is enabled in the
	// background, bounded by the watcher's life; on a committed one Watch
	// waits for it (at most probeTimeout), so a Navigate right after Watch
	// has its load errors seen.
	if !committed || crashed {
		w.enableNetworkLater()
		return nil
	}
	network := make(chan error, 1)
	go func() {
		network <- w.probe(p, func(p *rod.Page) error { return proto.NetworkEnable{}.Call(p) })
	}()
	var tree *proto.PageGetFrameTreeResult
	err = w.probe(p, func(p *rod.Page) (err error) {
		tree, err = proto.PageGetFrameTree{}.Call(p)
		return err
	})
	if err == nil {
		w.sawFrameTree(tree, seq)
	}
	if err := <-network; err != nil {
		w.enableNetworkLater()
	}
	return nil
}

// enableNetworkLater enables the Network domain once the renderer answers;
// Chrome holds the call while the tab is crashed or in its first load.
func (w *Watcher) enableNetworkLater() {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		_ = proto.NetworkEnable{}.Call(w.page)
	}()
}

// probe runs fn on the tab as an eval in flight, so a crash or Close cuts it short.
func (w *Watcher) probe(p *rod.Page, fn func(*rod.Page) error) error {
	ctx, stop := context.WithCancelCause(p.GetContext())
	defer stop(nil)
	call := &inflight{cancel: stop}
	if err := w.enter(call); err != nil {
		return err
	}
	defer w.leave(call)
	return fn(p.Context(ctx))
}

// sawFrameTree records an error page standing in for the committed URL,
// which the browser-side history does not tell, unless events since seq
// brought fresher news.
func (w *Watcher) sawFrameTree(tree *proto.PageGetFrameTreeResult, seq uint64) {
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil || tree.FrameTree.Frame.UnreachableURL == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.navSeq == seq {
		w.state.ErrorPage, w.state.Committed, w.state.URL = true, false, tree.FrameTree.Frame.UnreachableURL
	}
}

func (w *Watcher) startError(what string, err error) error {
	if errors.Is(err, context.Canceled) && w.page.GetContext().Err() != nil {
		return &BlockedError{Reason: ErrTabClosed} // rod ends the session's context on detach
	}
	var be *BlockedError
	if errors.As(w.classify(err), &be) {
		return be
	}
	return fmt.Errorf("watch tab: %s: %w", what, err)
}

// State returns what the watcher knows of the tab now. It makes no CDP call.
func (w *Watcher) State() TabState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// Blocked reports whether an eval on the tab would be refused now: nil, or
// the [*BlockedError] that [Watcher.Eval] would return, or [ErrWatcherClosed],
// or ctx.Err() when ctx is already done. It makes no CDP call: the events
// keep the state current, and Watch learned the state before them.
func (w *Watcher) Blocked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWatcherClosed
	}
	return EvalBlockedReason(w.state)
}

// Close stops following the tab, fails evals still in flight with
// [ErrWatcherClosed], and waits for the watcher's goroutines to return. It
// leaves the tab itself alone. Calling Close again does nothing.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		w.failInflight(ErrWatcherClosed)
	}
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
	return nil
}

// enter admits an eval when the tab may answer, and tracks it so a crash can
// cut it short.
func (w *Watcher) enter(call *inflight) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrWatcherClosed
	}
	if err := EvalBlockedReason(w.state); err != nil {
		return err
	}
	call.navSeq, call.terminations = w.navSeq, w.terminations
	w.inflight[call] = struct{}{}
	return nil
}

func (w *Watcher) leave(call *inflight) {
	w.mu.Lock()
	delete(w.inflight, call)
	w.mu.Unlock()
}

// failInflight cuts every eval in flight short with cause. w.mu must be held.
func (w *Watcher) failInflight(cause error) {
	for call := range w.inflight {
		call.cancel(cause)
		delete(w.inflight, call)
	}
}
