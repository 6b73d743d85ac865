package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// Browser follows every tab of one browser: the tabs it watches, and the
// page targets the browser-wide events tell of. Its methods are safe for
// concurrent use.
type Browser struct {
	d Driver
	// browser is d's session, noting the round trip of each answer in
	// link: for the calls the browser process answers at once (link.go).
	browser Session
	link    link
	syncer  Syncer     // nil: replies never overtake events
	loss    LossPoller // nil: calls end with the loss reported
	loads   LoadFailer // nil: a program's failed navigation waits for no download
	cfg     Config
	life    context.Context // ends with Close: the heartbeat, the calls of its own
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// The hand-backs under way (release.go): hands counts their
	// goroutines, handing those not yet in the driver's hands; handsOver
	// ends with Close, and ends them.
	hands, handing sync.WaitGroup
	handsOver      context.Context
	endHands       context.CancelFunc

	chMu     sync.Mutex // serialises notify with the close of the sink
	chClosed bool
	// listed says Start has taken the list of tabs: a change before it is
	// of a tab the list has, not a change since the watcher started.
	listed atomic.Bool
	missed int // changes dropped since the last one delivered

	mu       sync.RWMutex
	sessions map[string]*Tab
	targets  map[string]*target
	order    uint64 // numbers targets in the order they were seen
	// lastCreated is the page target created last, to tell a discard.
	lastCreated newTarget
	closed      bool
	handsDone   bool // Close ends the hand-backs: no more are sent
	gone        bool
	reason      string // why the connection was lost: the first reason seen
	// provisional says reason is lostConnection, for a loss no error
	// explained yet: the first error that does replaces it.
	provisional bool
	// unplaced is the last error of a call the driver could not place,
	// and when: a transport of the program's own can end a connection
	// with an error only it knows, which the calls in flight get.
	unplaced   string
	unplacedAt time.Time
	drop       drop // a connection that resumes: its drops (resume.go)

	fmu           sync.Mutex              // guards iframeTargets and downloads; no other lock is taken while it is held
	iframeTargets map[string]iframeTarget // out-of-process iframes by target (= frame) ID
	downloads     map[string]string       // the target of each download under way, by GUID

	cmu            sync.Mutex                // guards contexts and defaultContext; taken before mu
	contexts       map[string]*contextPolicy // the policies in each browser context but the default (contexts.go)
	defaultContext string                    // the default browser context's ID, once Start knows it
}

// NewBrowser makes the Browser of a driver's browser. It sends nothing:
// the driver subscribes to the browser's events, pushing them into the
// Browser, and then calls Start.
func NewBrowser(d Driver, cfg Config) *Browser {
	life, cancel := context.WithCancel(context.Background())
	handsOver, endHands := context.WithCancel(context.Background())
	b := &Browser{
		d: d, cfg: cfg, life: life, cancel: cancel, handsOver: handsOver, endHands: endHands,
		sessions: map[string]*Tab{},
		targets:  map[string]*target{},
	}
	b.browser = browserSession{b}
	// Found once, as database/sql finds a driver's optional interfaces.
	b.syncer, _ = d.(Syncer)
	b.loads, _ = d.(LoadFailer)
	b.loss, _ = d.(LossPoller)
	return b
}

// Start lists the browser's page targets (asking for the browser-wide
// target events first when Config.DiscoverTargets says so) and sets its
// download and permission policies (see download.go, permissions.go), then
// starts the heartbeat. The list and the policies go out together, after
// the target events were asked for: two rounds at most. ctx and the eval
// timeout bound the start (startcall.go); a start that failed undoes the
// policies it set. A browser that went away gives ErrBrowserGone.
func (b *Browser) Start(ctx context.Context) error {
	if err := tabstate.CheckPermissionGrants(b.cfg.Permissions); err != nil {
		return err
	}
	if err := tabstate.CheckInsecureHosts(b.cfg.InsecureHosts); err != nil {
		return err
	}
	ctx, cancel, s := b.cfg.begin(ctx, "watch browser")
	defer cancel()
	if b.cfg.DiscoverTargets {
		// The tabs are listed after the target events are asked for.
		// Chrome answers Target.setDiscoverTargets with a targetCreated
		// for each tab open already, which a driver may hand over after
		// the reply: a change taken in before the list is of a tab the
		// list has, and is not reported (listed).
		err := s.call(ctx, b.browser, "Target.setDiscoverTargets", "Target.setDiscoverTargets", discoverParams{Discover: true}, nil)
		if err != nil {
			return b.startFailed("ask for its target events", err, false)
		}
	}
	var (
		res      targetsResult
		contexts contextsResult
	)
	errs := together(
		func() error { return s.call(ctx, b.browser, "Target.getTargets", "Target.getTargets", nil, &res) },
		func() error {
			return s.call(ctx, b.browser, "Target.getBrowserContexts", "Target.getBrowserContexts", nil, &contexts)
		},
		func() error { return b.downloadPolicy(ctx, s, "") },
		func() error { return b.permissionPolicy(ctx, s, "") },
	)
	for i, what := range []string{"list its tabs", "list its browser contexts", "set its download policy", "set its permission policy"} {
		if errs[i] != nil {
			return b.startFailed(what, errs[i], true)
		}
	}
	if err := b.startContexts(ctx, s, contexts); err != nil {
		return b.startFailed("set its policies in its browser contexts", err, true)
	}
	for _, info := range res.TargetInfos {
		b.seen(info, false)
	}
	b.listed.Store(true)
	b.iframes(res.TargetInfos)
	if b.cfg.Heartbeat > 0 {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.heartbeat(b.cfg.Heartbeat)
		}()
	}
	return nil
}

// startFailed is Start's error when what failed with err, after it undid
// the policies, when they were sent.
func (b *Browser) startFailed(what string, err error, sent bool) error {
	if sent {
		b.undoPolicies()
	}
	if te, ok := startTimeout(err); ok {
		return b.cfg.Advice.Words(te)
	}
	if b.lost() || b.d.Classify(err).Kind == Lost {
		return b.goneError()
	}
	return fmt.Errorf("watch browser: %s: %w", what, err)
}

// Close stops following the browser: it closes every Tab (failing their
// calls in flight with ErrWatcherClosed), closes the sink and waits for the
// goroutines it started. The driver stops pushing events after it; any it
// still pushes are ignored.
func (b *Browser) Close() {
	closeAll(b.mark(&b.closed))
	b.endHandBacks()
	b.cancel()
	b.wg.Wait()
	b.closeChanges()
}

// closeAll closes the tabs side by side.
func closeAll(tabs []*Tab) {
	var wg sync.WaitGroup
	for _, t := range tabs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Close()
		}()
	}
	wg.Wait()
}

// Config is the configuration the Browser was made with.
func (b *Browser) Config() Config { return b.cfg }

// Tab returns the tab watched on session id, or nil: the driver routes a
// session's events with it.
func (b *Browser) Tab(sessionID string) *Tab {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.sessions[sessionID]
}

// add registers t, so the events of its tab reach it.
func (b *Browser) add(t *Tab) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return fmt.Errorf("%w: the BrowserWatcher is closed", tabstate.ErrWatcherClosed)
	case b.gone:
		return b.cfg.Advice.Refusal(&tabstate.BlockedError{Reason: tabstate.ErrBrowserGone, Detail: b.reason})
	case b.sessions[t.sessionID] != nil:
		return fmt.Errorf("%w: tab %s is watched already: use the Watcher the first Watch returned", tabstate.ErrInvalidArgument, t.id)
	}
	b.sessions[t.sessionID] = t
	tg := b.target(t.id)
	tg.tabs = append(tg.tabs, t)
	return nil
}

// remove forgets t; its tab's events no longer reach it.
func (b *Browser) remove(t *Tab) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sessions[t.sessionID] == t {
		delete(b.sessions, t.sessionID)
	}
	if tg := b.targets[t.id]; tg != nil {
		tg.tabs = without(tg.tabs, t)
	}
}

// Disconnected records that the connection to the browser is lost, and
// why, on every tab, cutting their calls in flight short, and closes the
// sink. The first reason stays: a later, vaguer one (the socket's end
// after a close frame that named the cause) does not replace it. An empty
// reason is a loss the driver cannot explain: an error it could not place
// that a call got a moment before explains it, or else the first one a
// call gets after it.
func (b *Browser) Disconnected(reason string) {
	b.mu.Lock()
	if reason == "" && b.unplaced != "" && time.Since(b.unplacedAt) < b.unplacedWindow() {
		reason = b.unplaced
	}
	if b.gone && (!b.provisional || reason == "") {
		b.mu.Unlock()
		return
	}
	first := !b.gone
	b.gone, b.provisional = true, reason == ""
	b.endDrop()
	if reason == "" {
		reason = lostConnection
	}
	b.reason = reason
	tabs := b.all()
	b.mu.Unlock()
	if first {
		b.changed(tabtrace.BrowserGone, "", "", reason)
	}
	for _, t := range tabs {
		t.Apply(tabstate.Disconnected{Reason: reason})
	}
	b.closeChanges()
}

// unplacedWindow is how long before a driver sees its connection end an
// error it could not place counts as the reason: the calls in flight get
// the error that ended the connection as the driver sees its end. It is
// the event grace (Options.EventGrace).
func (b *Browser) unplacedWindow() time.Duration { return b.cfg.grace() }

// unplacedError notes the error of a call that the driver could not
// place. It reports whether the connection is lost; err then explains a
// loss nothing explained yet.
func (b *Browser) unplacedError(err error) bool {
	b.mu.Lock()
	gone := b.gone
	if !gone {
		b.unplaced, b.unplacedAt = err.Error(), time.Now()
	}
	b.mu.Unlock()
	if gone {
		b.Disconnected(err.Error())
	}
	return gone
}

// lostConnection is the reason of a loss no error explained.
const lostConnection = "the DevTools connection closed"

// lost reports whether the connection to the browser is lost, on a driver
// that may know before the engine does (a LossPoller), and records it. On
// another driver it reports false: the loss reaches the engine with it.
func (b *Browser) lost() bool {
	if b.loss == nil || !b.loss.Lost() {
		return false
	}
	b.mu.RLock()
	gone := b.gone
	b.mu.RUnlock()
	if !gone {
		b.Disconnected(b.LostReason())
	}
	return true
}

// goneError is the refusal of a lost browser.
func (b *Browser) goneError() error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.cfg.Advice.Refusal(&tabstate.BlockedError{Reason: tabstate.ErrBrowserGone, Detail: b.reason})
}

// mark sets *flag (b.closed) under b.mu and returns the tabs b has then.
func (b *Browser) mark(flag *bool) []*Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	*flag = true
	return b.all()
}

// all returns every watched tab. b.mu must be held.
func (b *Browser) all() []*Tab {
	all := make([]*Tab, 0, len(b.sessions))
	for _, t := range b.sessions {
		all = append(all, t)
	}
	return all
}

// sync returns once every event Chrome sent so far has been pushed in, on
// a driver whose replies can overtake events; at once on another. A sync
// is a round trip of the browser process, bounded by ctx and the engine's
// patience, or more as the link shows.
func (b *Browser) sync(ctx context.Context) error {
	if b.syncer == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.patience())
	defer cancel()
	return b.syncer.Sync(ctx)
}

// aborted reports whether err is the driver's error for a navigation
// Chrome aborted (net::ERR_ABORTED), as one that became a download is.
func (b *Browser) aborted(err error) bool {
	if b.loads == nil {
		return false
	}
	text, ok := b.loads.LoadFailure(err)
	return ok && text == "net::ERR_ABORTED"
}

// classify reads a driver error; a context error on a driver that cancels
// calls before it reports a loss is the loss.
func (b *Browser) classify(err error) Failure {
	f := b.d.Classify(err)
	if f.Kind == Other && errors.Is(err, context.Canceled) && b.loss != nil && b.lost() {
		f = Failure{Kind: Lost, Reason: b.reasonNow()}
	}
	return f
}

// reasonNow is why the connection was lost, once it was.
func (b *Browser) reasonNow() string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.reason
}

// without returns ts without t, in a new slice: readers may hold the old one.
func without(ts []*Tab, t *Tab) []*Tab {
	out := make([]*Tab, 0, len(ts))
	for _, x := range ts {
		if x != t {
			out = append(out, x)
		}
	}
	return out
}
