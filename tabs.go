package tabguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// changesBuffer is how many changes Changes holds for a consumer that has
// not read them yet; more are dropped, and counted.
const changesBuffer = 256

// TabInfo is what a [BrowserWatcher] knows of one tab of its browser.
type TabInfo struct {
	// TargetID is the tab's target; rod's Browser.PageFromTarget attaches
	// to it, and BrowserWatcher.Watch watches the page.
	TargetID proto.TargetTargetID
	// OpenerID is the tab that opened this one (window.open, a link with
	// target=_blank), or empty.
	OpenerID proto.TargetTargetID
	// URL and Title are the tab's, as the browser last reported them in
	// a target event. Chrome 156 sends one as a navigation commits, not
	// when the page sets its title afterwards, so Title may still read as
	// the URL: Eval "document.title" for the current one.
	URL, Title string
	// Watched reports that a Watcher follows the tab, so State is complete.
	// For a tab no Watcher follows, State holds what the browser-wide events
	// tell: its URL, a crash and its status; the rest reads as unknown
	// (Committed and Loaded are false).
	Watched bool
	// State is what is known of the tab's health.
	State TabState
	// Refusal is what an eval on the tab would get now: nil, or the
	// [*BlockedError] of State (for a watched tab, under the watcher's
	// dialog policy).
	Refusal error
}

// TabChangeKind says what happened to a tab.
type TabChangeKind int

const (
	// TabOpened: a new tab appeared, opened by the program or by a page.
	TabOpened TabChangeKind = iota + 1
	// TabCrashed: the tab's renderer died.
	TabCrashed
	// TabClosed: the tab is gone.
	TabClosed
)

// String names the kind, as in "TabCrashed".
func (k TabChangeKind) String() string {
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

// TabChange is news of one tab from [BrowserWatcher.Changes].
type TabChange struct {
	Kind TabChangeKind
	// Tab is the tab right after the change.
	Tab TabInfo
	// Missed counts the changes dropped just before this one because the
	// consumer fell behind; call Tabs to learn where things stand.
	Missed int
}

// discardWindow is how soon after its replacement appears a discarded
// tab's target goes: Chrome does both in one step.
const discardWindow = time.Second

// newTarget is the page target created last, not attached: the replacement
// of a tab that is being discarded looks so.
type newTarget struct {
	id         proto.TargetTargetID
	url, title string
	at         time.Time
}

// created notes a page target Target.targetCreated reports.
func (bw *BrowserWatcher) created(info *proto.TargetTargetInfo) {
	if info == nil || info.Type != proto.TargetTargetInfoTypePage || info.Attached {
		return
	}
	bw.mu.Lock()
	bw.lastCreated = newTarget{id: info.TargetID, url: info.URL, title: info.Title, at: time.Now()}
	bw.mu.Unlock()
}

// closing returns the event that ends target id: Discarded when Chrome has
// just made a replacement for it (same URL and title, created a moment ago
// and not attached, which is how a discard looks, measured on Chromium 156),
// Detached otherwise.
func (bw *BrowserWatcher) closing(id proto.TargetTargetID) tabstate.Event {
	bw.mu.RLock()
	defer bw.mu.RUnlock()
	t, r := bw.targets[id], bw.lastCreated
	if t != nil && r.id != id && r.title != "" && r.url == t.url && r.title == t.title && time.Since(r.at) < discardWindow {
		return tabstate.Discarded{ReplacementID: string(r.id)}
	}
	return tabstate.Detached{TargetID: string(id)}
}

// pageTarget is one page target of the browser.
type pageTarget struct {
	n        uint64 // when it was seen, for the order of Tabs
	attached bool   // some client is attached to it
	opener   proto.TargetTargetID
	url      string
	title    string
	tab      tabstate.Tab // what browser-wide events say of it
	watchers []*Watcher
	removed  chan struct{} // closed when the target leaves the list
}

// Tabs lists every page target of the browser, tabs and popups alike, in the
// order the BrowserWatcher first saw them, with no CDP call: what the
// events said. A closed tab is dropped from the list as Chrome reports it.
func (bw *BrowserWatcher) Tabs() []TabInfo {
	bw.mu.RLock()
	ids := make([]proto.TargetTargetID, 0, len(bw.targets))
	for id := range bw.targets {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return bw.targets[ids[i]].n < bw.targets[ids[j]].n })
	snaps := make([]tabSnapshot, len(ids))
	for i, id := range ids {
		snaps[i] = bw.snapshot(id)
	}
	bw.mu.RUnlock()
	infos := make([]TabInfo, len(snaps))
	for i, s := range snaps {
		infos[i] = s.info()
	}
	return infos
}

// Changes returns the channel on which bw reports each new tab, crash and
// closed tab, in order. It never holds up the event stream: it holds up to
// 256 changes, and when its consumer falls further behind, later changes
// are dropped and the next one delivered counts them in Missed. It is
// closed when bw closes or the browser goes away.
func (bw *BrowserWatcher) Changes() <-chan TabChange { return bw.changes }

// listTargets learns the browser's page targets as they are now.
func (bw *BrowserWatcher) listTargets() error {
	ctx, cancel := context.WithTimeout(bw.browser.GetContext(), probeTimeout)
	defer cancel()
	res, err := proto.TargetGetTargets{}.Call(bw.browser.Context(ctx))
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || bw.browser.GetContext().Err() != nil {
			return &BlockedError{Reason: ErrBrowserGone}
		}
		return fmt.Errorf("watch browser: list its tabs: %w", err)
	}
	for _, info := range res.TargetInfos {
		bw.seen(info, false)
	}
	return nil
}

// target returns the page target id, making it if need be. bw.mu must be held.
func (bw *BrowserWatcher) target(id proto.TargetTargetID) *pageTarget {
	t := bw.targets[id]
	if t == nil {
		bw.order++
		t = &pageTarget{n: bw.order, tab: tabstate.Tab{MainFrame: string(id)}, removed: make(chan struct{})}
		bw.targets[id] = t
	}
	return t
}

// seen records a page target's info from Target.targetCreated,
// Target.targetInfoChanged or the list WatchBrowser starts with; notify
// says to report a target not seen before as opened.
func (bw *BrowserWatcher) seen(info *proto.TargetTargetInfo, notify bool) {
	if info == nil || info.Type != proto.TargetTargetInfoTypePage {
		return
	}
	bw.mu.Lock()
	_, known := bw.targets[info.TargetID]
	t := bw.target(info.TargetID)
	if known && t.tab.State().Crashed && info.Attached == t.attached {
		// Measured on Chromium 156: after Target.targetCrashed, Chrome's
		// next Target.targetInfoChanged for the target comes when a reload
		// or a navigation commits a new document, even with the same URL
		// and title; one that flips attached comes from a client attaching
		// or detaching instead.
		t.tab.Apply(tabstate.ReloadedAfterCrash{})
	}
	t.attached, t.opener, t.url, t.title = info.Attached, info.OpenerID, info.URL, info.Title
	var snap tabSnapshot
	if notify && !known {
		snap = bw.snapshot(info.TargetID)
	}
	bw.mu.Unlock()
	if snap.t != nil {
		bw.notify(TabOpened, snap)
	}
}

// targetEvent applies a browser-session event of one target to its state
// and its watchers, and reports a crash or a close.
func (bw *BrowserWatcher) targetEvent(id proto.TargetTargetID, ev tabstate.Event) {
	bw.mu.Lock()
	t := bw.targets[id]
	if t == nil {
		bw.mu.Unlock()
		return
	}
	crashed := t.tab.State().Crashed
	t.tab.Apply(ev)
	snap := bw.snapshot(id)
	closed := t.tab.State().Closed
	if closed {
		delete(bw.targets, id)
		close(t.removed)
	}
	bw.mu.Unlock()
	for _, w := range snap.watchers {
		w.apply(ev)
	}
	switch {
	case closed:
		bw.notify(TabClosed, snap)
	case !crashed && snap.state.Crashed:
		bw.notify(TabCrashed, snap)
	}
}

// removed returns a channel closed once target id has left the list (a
// closed one at once if it is not listed).
func (bw *BrowserWatcher) removed(id proto.TargetTargetID) <-chan struct{} {
	bw.mu.RLock()
	defer bw.mu.RUnlock()
	if t := bw.targets[id]; t != nil {
		return t.removed
	}
	done := make(chan struct{})
	close(done)
	return done
}

// tabSnapshot is a page target as it was under bw.mu.
type tabSnapshot struct {
	t        *pageTarget
	id       proto.TargetTargetID
	opener   proto.TargetTargetID
	url      string
	title    string
	state    TabState
	watchers []*Watcher
}

// snapshot copies target id. bw.mu must be held.
func (bw *BrowserWatcher) snapshot(id proto.TargetTargetID) tabSnapshot {
	t := bw.targets[id]
	return tabSnapshot{t: t, id: id, opener: t.opener, url: t.url, title: t.title, state: t.tab.State(), watchers: t.watchers}
}

// info is the snapshot as a TabInfo; a watched tab's state is its watcher's.
// It takes the watcher's lock, so bw.mu must not be held.
func (s tabSnapshot) info() TabInfo {
	ti := TabInfo{TargetID: s.id, OpenerID: s.opener, URL: s.url, Title: s.title, State: s.state}
	if len(s.watchers) > 0 {
		w := s.watchers[0]
		ti.Watched = true
		w.mu.Lock()
		ti.State, ti.Refusal = w.tab.State(), w.refusal()
		w.mu.Unlock()
		return ti
	}
	if ti.State.URL == "" {
		ti.State.URL = s.url
	}
	ti.Refusal = tabstate.Blocked(ti.State)
	return ti
}

// notify reports a change without ever blocking: when the channel is full
// the change is dropped and counted. It runs on the event loop only, which
// closes the channel when it ends.
func (bw *BrowserWatcher) notify(kind TabChangeKind, snap tabSnapshot) {
	bw.mu.Lock()
	missed := bw.missed
	bw.mu.Unlock()
	select {
	case bw.changes <- TabChange{Kind: kind, Tab: snap.info(), Missed: missed}:
		missed = 0
	default:
		missed++
	}
	bw.mu.Lock()
	bw.missed = missed
	bw.mu.Unlock()
}
