package engine

import (
	"sort"
	"strconv"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// ChangesBuffer is how many changes a backend's Changes channel holds for
// a consumer that has not read them yet; more are dropped, and counted.
const ChangesBuffer = 256

// Sink takes the Browser's changes for a backend, typed its own way.
type Sink interface {
	// Send delivers c without blocking; false means the consumer has
	// fallen behind and c is dropped (the next delivered counts it).
	Send(c Change) bool
	// Close ends the changes; Send is not called after it.
	Close()
}

// Chan is a Sink on a channel of a backend's own change type.
type Chan[C any] struct {
	C       chan C
	Convert func(Change) C
}

// Send delivers c unless the channel is full.
func (s Chan[C]) Send(c Change) bool {
	select {
	case s.C <- s.Convert(c):
		return true
	default:
		return false
	}
}

// Close closes the channel.
func (s Chan[C]) Close() { close(s.C) }

// TabInfo is what a Browser knows of one page target.
type TabInfo struct {
	TargetID, OpenerID string
	URL, Title         string
	// Watched reports that a Tab follows the target, so State is complete.
	Watched bool
	State   tabstate.State
	// Refusal is what a call on the tab would get now.
	Refusal error
}

// ChangeKind says what happened to a tab.
type ChangeKind int

// The kinds of change, numbered as the backends' TabChangeKind.
const (
	TabOpened ChangeKind = iota + 1
	TabCrashed
	TabClosed
)

// String names the kind, as in "TabCrashed".
func (k ChangeKind) String() string {
	switch k {
	case TabOpened:
		return "TabOpened"
	case TabCrashed:
		return "TabCrashed"
	case TabClosed:
		return "TabClosed"
	}
	return "TabChangeKind(" + strconv.Itoa(int(k)) + ")"
}

// Change is news of one tab.
type Change struct {
	Kind ChangeKind
	Tab  TabInfo
	// Missed counts the changes dropped just before this one.
	Missed int
}

// A discarded tab's target goes within the engine's patience (1 s by
// default, or more as the link shows) after its replacement appears:
// Chrome does both in one step.

// newTarget is the page target created last, not attached: the
// replacement of a tab that is being discarded looks so.
type newTarget struct {
	id, url, title string
	at             time.Time
}

// target is one page target of the browser.
type target struct {
	n        uint64 // when it was seen, for the order of Tabs
	attached bool   // some client is attached to it
	opener   string
	url      string
	title    string
	tab      tabstate.Tab // what browser-wide events say of it
	tabs     []*Tab
	removed  chan struct{} // closed when the target leaves the list
}

// TargetCreated takes in Target.targetCreated.
func (b *Browser) TargetCreated(info TargetInfo) {
	b.learnContext(info.BrowserContextID)
	if info.Type == "page" && !info.Attached {
		b.mu.Lock()
		b.lastCreated = newTarget{id: info.TargetID, url: info.URL, title: info.Title, at: time.Now()}
		b.mu.Unlock()
	}
	b.seen(info, true)
}

// TargetInfoChanged takes in Target.targetInfoChanged.
func (b *Browser) TargetInfoChanged(info TargetInfo) { b.seen(info, true) }

// TargetCrashed takes in Target.targetCrashed.
func (b *Browser) TargetCrashed(id, status string) {
	if b.iframeCrashed(id, status) {
		return
	}
	b.targetEvent(id, tabstate.TargetCrashed{TargetID: id, Status: status})
}

// TargetDestroyed takes in Target.targetDestroyed.
func (b *Browser) TargetDestroyed(id string) {
	if b.iframeGone(id) {
		return
	}
	b.targetEvent(id, b.closing(id))
}

// DetachedFromTarget takes in Target.detachedFromTarget: the tab watched
// on that session can no longer be called.
func (b *Browser) DetachedFromTarget(sessionID string) {
	if t := b.Tab(sessionID); t != nil {
		t.Apply(b.closing(t.id))
	}
}

// closing returns the event that ends target id: Discarded when Chrome has
// just made a replacement for it (same URL and title, created a moment ago
// and not attached, which is how a discard looks, measured on Chromium
// 156), Detached otherwise.
func (b *Browser) closing(id string) tabstate.Event {
	b.mu.RLock()
	defer b.mu.RUnlock()
	t, r := b.targets[id], b.lastCreated
	if t != nil && r.id != id && r.title != "" && r.url == t.url && r.title == t.title && time.Since(r.at) < b.patience() {
		return tabstate.Discarded{ReplacementID: r.id}
	}
	return tabstate.Detached{TargetID: id}
}

// target returns the page target id, making it if need be. b.mu must be held.
func (b *Browser) target(id string) *target {
	t := b.targets[id]
	if t == nil {
		b.order++
		t = &target{n: b.order, tab: tabstate.Tab{MainFrame: id}, removed: make(chan struct{})}
		b.targets[id] = t
	}
	return t
}

// seen records a page target's info from Target.targetCreated,
// Target.targetInfoChanged or the list Start begins with; notify says to
// report a target not seen before as opened.
func (b *Browser) seen(info TargetInfo, notify bool) {
	if info.Type == "iframe" && notify {
		b.iframeSeen(info)
	}
	if info.Type != "page" {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	_, known := b.targets[info.TargetID]
	t := b.target(info.TargetID)
	if known && t.tab.State().Crashed && info.Attached == t.attached {
		// Measured on Chromium 156: after Target.targetCrashed, Chrome's
		// next Target.targetInfoChanged for the target comes when a reload
		// or a navigation commits a new document, even with the same URL
		// and title; one that flips attached comes from a client attaching
		// or detaching instead.
		t.tab.Apply(tabstate.ReloadedAfterCrash{})
	}
	t.attached, t.opener, t.url, t.title = info.Attached, info.OpenerID, info.URL, info.Title
	var snap snapshot
	if notify && !known {
		snap = b.snapshot(info.TargetID)
	}
	b.mu.Unlock()
	if snap.t != nil {
		b.notify(TabOpened, snap)
	}
}

// targetEvent applies a browser-session event of one target to its state
// and its tabs, and reports a crash or a close.
func (b *Browser) targetEvent(id string, ev tabstate.Event) {
	b.mu.Lock()
	t := b.targets[id]
	if t == nil {
		b.mu.Unlock()
		return
	}
	crashed := t.tab.State().Crashed
	t.tab.Apply(ev)
	snap := b.snapshot(id)
	closed := t.tab.State().Closed
	if closed {
		delete(b.targets, id)
		close(t.removed)
	}
	b.mu.Unlock()
	for _, tab := range snap.tabs {
		tab.Apply(ev)
	}
	switch {
	case closed:
		b.notify(TabClosed, snap)
	case !crashed && snap.state.Crashed:
		b.notify(TabCrashed, snap)
	}
}

// removed returns a channel closed once target id has left the list (a
// closed one at once if it is not listed).
func (b *Browser) removed(id string) <-chan struct{} {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if t := b.targets[id]; t != nil {
		return t.removed
	}
	done := make(chan struct{})
	close(done)
	return done
}

// Tabs lists every page target of the browser in the order the Browser
// first saw them, with no CDP call: what the events said.
func (b *Browser) Tabs() []TabInfo {
	b.mu.RLock()
	ids := make([]string, 0, len(b.targets))
	for id := range b.targets {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return b.targets[ids[i]].n < b.targets[ids[j]].n })
	snaps := make([]snapshot, len(ids))
	for i, id := range ids {
		snaps[i] = b.snapshot(id)
	}
	b.mu.RUnlock()
	infos := make([]TabInfo, len(snaps))
	for i, s := range snaps {
		infos[i] = s.info()
	}
	return infos
}

// Convert converts the engine's values to a backend's types.
func Convert[From, To any](from []From, convert func(From) To) []To {
	to := make([]To, len(from))
	for i, f := range from {
		to[i] = convert(f)
	}
	return to
}

// snapshot is a page target as it was under b.mu.
type snapshot struct {
	t                      *target
	id, opener, url, title string
	state                  tabstate.State
	tabs                   []*Tab
	advice                 *tabstate.Advice
}

// snapshot copies target id. b.mu must be held.
func (b *Browser) snapshot(id string) snapshot {
	t := b.targets[id]
	return snapshot{t: t, id: id, opener: t.opener, url: t.url, title: t.title, state: t.tab.State(), tabs: t.tabs, advice: b.cfg.Advice}
}

// info is the snapshot as a TabInfo; a watched tab's state is its Tab's.
// It takes the Tab's lock, so b.mu must not be held.
func (s snapshot) info() TabInfo {
	ti := TabInfo{TargetID: s.id, OpenerID: s.opener, URL: s.url, Title: s.title, State: s.state}
	if len(s.tabs) > 0 {
		ti.Watched = true
		ti.State, ti.Refusal = s.tabs[0].stateAndRefusal()
		return ti
	}
	if ti.State.URL == "" {
		ti.State.URL = s.url
	}
	ti.Refusal = refusal(s.advice, tabstate.Blocked(ti.State))
	return ti
}

// notify reports a change to the sink without ever blocking: when the
// sink is full the change is dropped and counted. Before Start took its
// list there is nothing to report (Browser.listed).
func (b *Browser) notify(kind ChangeKind, snap snapshot) {
	if !b.listed.Load() {
		return
	}
	b.registryChange(kind, snap)
	if b.cfg.Sink == nil {
		return
	}
	info := snap.info()
	b.chMu.Lock()
	defer b.chMu.Unlock()
	if b.chClosed {
		return
	}
	if b.cfg.Sink.Send(Change{Kind: kind, Tab: info, Missed: b.missed}) {
		b.missed = 0
	} else {
		b.missed++
	}
}

// closeChanges closes the sink, once.
func (b *Browser) closeChanges() {
	b.chMu.Lock()
	defer b.chMu.Unlock()
	if !b.chClosed && b.cfg.Sink != nil {
		b.cfg.Sink.Close()
	}
	b.chClosed = true
}
