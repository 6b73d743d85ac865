package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// Tab follows one tab through its events and runs calls on it under the
// guard. Its methods are safe for concurrent use.
type Tab struct {
	b         *Browser
	s         Session
	id        string
	sessionID string
	parent    context.Context // the handle's Life
	network   bool            // the driver enabled the Network domain
	timeout   time.Duration
	life      context.Context // ends with Close or with parent
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	mu       sync.Mutex
	tab      tabstate.Tab
	closed   bool
	started  bool          // Watch returned the Tab: the Trace was told
	changed  chan struct{} // closed and replaced on every change of the state
	inflight map[*inflight]struct{}
	// terminations counts Runtime.terminateExecution calls, which also
	// stop the scripts of other calls in flight.
	terminations uint64
	// stuckDialog numbers a dialog that the dialog policy failed to
	// handle, which is then refused as under DialogRefuse.
	stuckDialog uint64
	// dialogAt is when the last dialog opened, and ownDialog the number
	// of the dialog HandleDialog handled last: to tell a dialog another
	// client closed at once.
	dialogAt  time.Time
	ownDialog uint64
	// lastDialog is the type and text of the last dialog that opened,
	// for the action that opened it.
	lastDialog tabstate.ActionDialog
	// located is the page's location as the start's probe read it: a
	// document of that URL is committed.
	located string
	// reaches is how the Tab reaches its frames' documents; detaches are
	// the sessions of frames it no longer reaches, to end outside t.mu.
	// framesKnown says the tab's frames are known from its events, or
	// were learned.
	reaches     map[string]*reach
	detaches    []func()
	framesKnown bool
	// downloads are the tab's last downloads, oldest first, of
	// downloadsBegun so far (download.go).
	downloads      []*download
	downloadsBegun uint64
	// sign is what the tab remembers of its sign-ins (signin.go), and
	// certs of the certificate errors it refused (certificates.go).
	sign  signIns
	certs certificates
	// lna is what the tab's events told of denied local network
	// requests (permissions.go).
	lna localNetwork
	// choosers counts the file choosers cancelled, the last of which is
	// lastChooser (filechooser.go).
	choosers    atomic.Uint64
	lastChooser *tabstate.BlockedError
	// printScript is Chrome's identifier of the script that replaces
	// print (print.go), which Close removes.
	printScript string
	// printDone is closed when the print call on its way answers; nil
	// when none is (print.go).
	printDone chan struct{}
	// stall is what the last call that ran out of time found, while
	// stalled says one is noted (recover.go).
	stall   stall
	stalled atomic.Bool
	// console is the tab's last console messages (console.go).
	console consoleLog
	// refs numbers the frames of the snapshots' refs (snapshot.go).
	refs refFrames
}

// Watch starts following the tab h and learns its state as it is now (see
// start). The caller should call the Tab's Close when finished. A tab that
// is closed gives a [*tabstate.BlockedError] with ErrTabClosed; a lost
// browser, ErrBrowserGone.
func (b *Browser) Watch(h TabHandle) (*Tab, error) {
	if h.Session == nil || h.Life == nil || h.TargetID == "" {
		return nil, fmt.Errorf("%w: a tab handle needs a session, a life and a target ID", tabstate.ErrInvalidArgument)
	}
	if err := b.checkInsecureHosts(h); err != nil {
		return nil, err
	}
	if h.Life.Err() != nil {
		return nil, refusal(b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrTabClosed})
	}
	life, cancel := context.WithCancel(h.Life)
	t := &Tab{
		b: b, s: h.Session, id: h.TargetID, sessionID: h.SessionID, parent: h.Life,
		network: h.NetworkEnabled, timeout: b.cfg.timeout(), life: life, cancel: cancel,
		changed: make(chan struct{}), inflight: map[*inflight]struct{}{},
	}
	t.tab.MainFrame = h.TargetID
	// Register and listen before the first probe, so no event in between is lost.
	if err := b.add(t); err != nil {
		cancel()
		return nil, err
	}
	if h.Listen != nil {
		if err := h.Listen(life, t); err != nil {
			t.Close()
			return nil, fmt.Errorf("watch tab: %w", err)
		}
	}
	start := h.Start
	if start == nil {
		start = life
	}
	if err := t.start(start); err != nil {
		t.Close()
		return nil, err
	}
	t.mu.Lock()
	t.started = true
	url := t.tab.State().URL
	t.mu.Unlock()
	b.changed(tabtrace.TabWatched, t.id, url, "")
	return t, nil
}

// TargetID is the tab's target.
func (t *Tab) TargetID() string { return t.id }

// Life is the context the Tab lives in: it ends with Close.
func (t *Tab) Life() context.Context { return t.life }

// State returns what the Tab knows of its tab now, with no CDP call.
func (t *Tab) State() tabstate.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tab.State()
}

// stateAndRefusal returns the state and its refusal, as one read.
func (t *Tab) stateAndRefusal() (tabstate.State, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tab.State(), t.refusal()
}

// Blocked reports whether a call on the tab would be refused now: nil, the
// [*tabstate.BlockedError] a call would get, ErrWatcherClosed, or ctx's
// error when ctx is done. It makes no CDP call on a tab the events say is
// healthy. Before a refusal that a recovery may have ended, it makes sure
// every event Chrome sent so far has been applied (see confirm).
func (t *Tab) Blocked(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return t.confirm(ctx, t.refused())
}

// refused returns the Tab's refusal now, with no CDP call.
func (t *Tab) refused() error {
	t.b.lost()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return tabstate.ErrWatcherClosed
	}
	return t.refusal()
}

// Close stops following the tab, fails calls still in flight with
// ErrWatcherClosed, and waits for the Tab's goroutines to return. It
// leaves the tab itself alone, but for what the Tab had Chrome hold for it
// on the tab's session, which it hands back (release). Calling Close
// again does nothing.
func (t *Tab) Close() {
	t.mu.Lock()
	first := !t.closed
	if first {
		t.closed = true
		t.failInflight(tabstate.ErrWatcherClosed)
		t.broadcast()
	}
	url, started := t.tab.State().URL, t.started
	t.mu.Unlock()
	t.detachFrames(true)
	t.b.remove(t)
	t.cancel()
	t.wg.Wait()
	if first {
		t.release()
	}
	if first && started {
		t.b.changed(tabtrace.TabUnwatched, t.id, url, "")
	}
}

// Apply takes in one event of the tab and acts on what it changed: calls
// in flight are cut short when the tab can no longer answer them, waiters
// are woken, a dialog is handled under the policy. It never blocks and
// never sends a command, so a driver may call it from the goroutine that
// reads its socket.
func (t *Tab) Apply(ev tabstate.Event) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	if t.consoleEvent(ev) {
		t.mu.Unlock()
		return
	}
	switch e := ev.(type) {
	case tabstate.DownloadWillBegin, tabstate.DownloadProgress:
		t.mu.Unlock()
		t.b.Download(ev) // the page session's twin of the browser's event
		return
	case tabstate.RequestPaused, tabstate.AuthRequired:
		t.fetchEvent(ev)
		t.mu.Unlock()
		return
	case tabstate.CertificateError:
		t.certificateError(e)
		t.mu.Unlock()
		return
	case tabstate.CORSIssue:
		t.corsIssue(e)
		t.broadcast()
		t.mu.Unlock()
		return
	case tabstate.LoadingFailed:
		if e.CORSError == tabstate.CORSLocalNetworkDenied {
			t.deniedRequest(e.RequestID)
		}
	case tabstate.FileChooserOpened:
		t.mu.Unlock()
		t.chooserOpened(ev.(tabstate.FileChooserOpened))
		return
	}
	before := t.tab.State()
	change := t.tab.Apply(ev)
	if change == 0 {
		t.mu.Unlock()
		return
	}
	if change&tabstate.Cut != 0 {
		if err := t.refusal(); err != nil {
			t.failInflight(err)
		}
	}
	if change&tabstate.FrameCut != 0 {
		t.cutFrames()
	}
	switch e := ev.(type) {
	case tabstate.FrameNavigated:
		if e.ParentID == "" {
			t.framesKnown = true // a new document: its frames are told by events
		}
	case tabstate.FrameAttached:
		if url, ok := t.b.iframeURL(e.FrameID); ok {
			// Its own target came first: it runs out of process.
			t.tab.FrameMoved(e.FrameID, url)
		}
	case tabstate.DialogOpening:
		t.dialogAt = time.Now()
		t.lastDialog = tabstate.ActionDialog{Type: e.Type, Message: e.Message}
		t.dialogOpened(e, t.tab.Dialogs())
	case tabstate.DialogClosed:
		t.dialogClosed(before)
	}
	t.broadcast()
	after := t.tab.State()
	t.mu.Unlock()
	t.noted(before, after)
}

// noted tells the Trace and logs what an event did that the program
// should hear of.
func (t *Tab) noted(before, after tabstate.State) {
	if after.DialogOpen && !before.DialogOpen {
		t.b.changed(tabtrace.TabDialogOpened, t.id, after.URL, after.DialogType)
	}
	log := t.b.cfg.Logger
	if log == nil {
		return
	}
	switch {
	case after.Crashed && after.CrashReason != "" && (!before.Crashed || before.CrashReason == ""):
		// Once, when Target.targetCrashed brings the status, right after
		// Inspector.targetCrashed.
		log.Warn("tabguard: tab renderer crashed", "url", after.URL, "err", tabstate.Blocked(after))
	case after.DialogOpen && !before.DialogOpen && t.b.cfg.Dialogs == tabstate.DialogRefuse:
		log.Warn("tabguard: JavaScript dialog opened", "target", t.id, "err", tabstate.Blocked(after))
	case after.Paused && !before.Paused:
		log.Warn("tabguard: tab paused in the debugger", "target", t.id, "err", tabstate.Blocked(after))
	}
}

// refusal is the refusal of the tab's state under the dialog policy: a
// dialog that the policy is handling is no reason to refuse. t.mu must be
// held.
func (t *Tab) refusal() error {
	s := t.tab.State()
	if s.DialogOpen && t.b.cfg.Dialogs != tabstate.DialogRefuse && t.stuckDialog != t.tab.Dialogs() {
		s.DialogOpen = false
	}
	return t.withConsole(refusal(t.b.cfg.Advice, tabstate.Blocked(s)))
}

// refusal is err, a refusal or nil, with its remedy worded by a.
func refusal(a *tabstate.Advice, err error) error {
	if be, ok := err.(*tabstate.BlockedError); ok && a != nil {
		return a.Refusal(be)
	}
	return err
}

// broadcast wakes every waiter. t.mu must be held.
func (t *Tab) broadcast() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// await waits, up to d or until ctx ends, for cond to hold, waking on each
// change of the tab's state; it reports whether cond held. cond runs with
// t.mu held. It is how a reply waits for the event that explains it, which
// may trail the reply. The event that makes cond hold may also end ctx (a
// crash cuts the call short), so cond is read once more at the end.
func (t *Tab) await(ctx context.Context, d time.Duration, cond func() bool) bool {
	holds := func() (bool, <-chan struct{}) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return cond(), t.changed
	}
	var timer *time.Timer
	for {
		ok, ch := holds()
		if ok {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		}
		select {
		case <-ch:
			continue
		case <-timer.C:
		case <-ctx.Done():
		}
		ok, _ = holds()
		return ok
	}
}

func (t *Tab) logf(msg string, err error) {
	if log := t.b.cfg.Logger; log != nil {
		log.Warn(msg, "target", t.id, "err", err)
	}
}
