package chromedpguard

import (
	"sort"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/tabguard/tabguard/tabstate"
)

// TabInfo is what a [BrowserWatcher] knows of one tab of its browser.
type TabInfo struct {
	// TargetID is the tab's target; chromedp.WithTargetID attaches a new
	// context to it.
	TargetID target.ID
	// OpenerID is the tab that opened this one (window.open, a link with
	// target=_blank), or empty.
	OpenerID target.ID
	// URL and Title are the tab's, as the browser last reported them.
	URL, Title string
	// Watched reports that a Watcher follows the tab, so State is complete.
	// For another tab, State holds what the browser-wide events tell: its
	// URL, a crash and its status.
	Watched bool
	// State is what is known of the tab's health.
	State TabState
	// Refusal is what an eval on the tab would get now: nil, or the
	// [*BlockedError] of State.
	Refusal error
}

// discardWindow is how soon after its replacement appears a discarded
// tab's target goes: Chrome does both in one step.
const discardWindow = time.Second

// newTarget is the page target created last, not attached: the replacement
// of a tab that is being discarded looks so.
type newTarget struct {
	id         target.ID
	url, title string
	at         time.Time
}

// pageTarget is one page target of the browser.
type pageTarget struct {
	n        uint64 // when it was seen, for the order of Tabs
	attached bool
	opener   target.ID
	url      string
	title    string
	tab      tabstate.Tab // what browser-wide events say of it
	watchers []*Watcher
}

// Tabs lists every page target of the browser, tabs and popups alike, in
// the order the BrowserWatcher first saw them, with no CDP call: what the
// events said. A closed tab is dropped from the list as Chrome reports it.
func (bw *BrowserWatcher) Tabs() []TabInfo {
	bw.mu.RLock()
	ts := make([]*pageTarget, 0, len(bw.targets))
	infos := make([]TabInfo, 0, len(bw.targets))
	for id, t := range bw.targets {
		ts = append(ts, t)
		infos = append(infos, TabInfo{TargetID: id, OpenerID: t.opener, URL: t.url, Title: t.title, State: t.tab.State()})
	}
	watchers := make([][]*Watcher, len(ts))
	for i, t := range ts {
		watchers[i] = t.watchers
	}
	bw.mu.RUnlock()
	for i := range infos {
		if len(watchers[i]) > 0 {
			w := watchers[i][0]
			w.mu.Lock()
			infos[i].Watched, infos[i].State, infos[i].Refusal = true, w.tab.State(), w.refusal()
			w.mu.Unlock()
			continue
		}
		if infos[i].State.URL == "" {
			infos[i].State.URL = infos[i].URL
		}
		infos[i].Refusal = tabstate.Blocked(infos[i].State)
	}
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ts[order[a]].n < ts[order[b]].n })
	sorted := make([]TabInfo, len(infos))
	for i, j := range order {
		sorted[i] = infos[j]
	}
	return sorted
}

// created notes a page target Target.targetCreated reports.
func (bw *BrowserWatcher) created(info *target.Info) {
	if info == nil || info.Type != "page" || info.Attached {
		return
	}
	bw.mu.Lock()
	bw.lastCreated = newTarget{id: info.TargetID, url: info.URL, title: info.Title, at: time.Now()}
	bw.mu.Unlock()
}

// closing returns the event that ends target id: Discarded when Chrome has
// just made a replacement for it (same URL and title, created a moment ago
// and not attached, which is how a discard looks on Chromium 156), Detached
// otherwise.
func (bw *BrowserWatcher) closing(id target.ID) tabstate.Event {
	bw.mu.RLock()
	defer bw.mu.RUnlock()
	t, r := bw.targets[id], bw.lastCreated
	if t != nil && r.id != id && r.title != "" && r.url == t.url && r.title == t.title && time.Since(r.at) < discardWindow {
		return tabstate.Discarded{ReplacementID: string(r.id)}
	}
	return tabstate.Detached{TargetID: string(id)}
}

// target returns the page target id, making it if need be. bw.mu must be held.
func (bw *BrowserWatcher) target(id target.ID) *pageTarget {
	t := bw.targets[id]
	if t == nil {
		bw.order++
		t = &pageTarget{n: bw.order, tab: tabstate.Tab{MainFrame: string(id)}}
		bw.targets[id] = t
	}
	return t
}

// seen records a page target's info from Target.targetCreated,
// Target.targetInfoChanged or the list WatchBrowser starts with.
func (bw *BrowserWatcher) seen(info *target.Info) {
	if info == nil || info.Type != "page" {
		return
	}
	bw.mu.Lock()
	defer bw.mu.Unlock()
	_, known := bw.targets[info.TargetID]
	t := bw.target(info.TargetID)
	if known && t.tab.State().Crashed && info.Attached == t.attached {
		// After Target.targetCrashed, Chrome's next Target.targetInfoChanged
		// for the target comes when a reload or a navigation commits a new
		// document; one that flips attached comes from a client instead.
		t.tab.Apply(tabstate.ReloadedAfterCrash{})
	}
	t.attached, t.opener, t.url, t.title = info.Attached, info.OpenerID, info.URL, info.Title
}

// targetEvent applies a browser-session event of one target to its state
// and its watchers.
func (bw *BrowserWatcher) targetEvent(id target.ID, ev tabstate.Event) {
	bw.mu.Lock()
	t := bw.targets[id]
	if t == nil {
		bw.mu.Unlock()
		return
	}
	t.tab.Apply(ev)
	watchers := t.watchers
	if t.tab.State().Closed {
		delete(bw.targets, id)
	}
	bw.mu.Unlock()
	for _, w := range watchers {
		w.apply(ev)
	}
}
