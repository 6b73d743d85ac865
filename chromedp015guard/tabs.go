package chromedp015guard

import (
	"github.com/chromedp/cdproto/target"
	"github.com/tabguard/tabguard/internal/engine"
)

// TabInfo is what a [BrowserWatcher] knows of one tab of its browser.
type TabInfo struct {
	// TargetID is the tab's target; chromedp.WithTargetID attaches a new
	// context to it, which BrowserWatcher.Watch watches.
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

// TabChangeKind says what happened to a tab.
type TabChangeKind int

const (
	// TabOpened: a new tab appeared, opened by the program or by a page.
	TabOpened = TabChangeKind(engine.TabOpened)
	// TabCrashed: the tab's renderer died.
	TabCrashed = TabChangeKind(engine.TabCrashed)
	// TabClosed: the tab is gone.
	TabClosed = TabChangeKind(engine.TabClosed)
)

// String names the kind, as in "TabCrashed".
func (k TabChangeKind) String() string { return engine.ChangeKind(k).String() }

// TabChange is news of one tab from [BrowserWatcher.Changes].
type TabChange struct {
	Kind TabChangeKind
	// Tab is the tab right after the change.
	Tab TabInfo
	// Missed counts the changes dropped just before this one because the
	// consumer fell behind; call Tabs to learn where things stand.
	Missed int
}

// Tabs lists every page target of the browser, tabs and popups alike, in
// the order the BrowserWatcher first saw them, with no CDP call: what the
// events said. A closed tab is dropped from the list as Chrome reports it.
func (bw *BrowserWatcher) Tabs() []TabInfo { return engine.Convert(bw.eng.Tabs(), tabInfo) }

// Changes returns the channel on which bw reports each new tab, crash and
// closed tab, in order. It never holds up the event stream: it holds up to
// 256 changes, and when its consumer falls further behind, later changes
// are dropped and the next one delivered counts them in Missed. It is
// closed when bw closes or the browser goes away.
func (bw *BrowserWatcher) Changes() <-chan TabChange { return bw.changes }

// tabInfo is the engine's TabInfo in cdproto's types.
func tabInfo(i engine.TabInfo) TabInfo {
	return TabInfo{TargetID: target.ID(i.TargetID), OpenerID: target.ID(i.OpenerID),
		URL: i.URL, Title: i.Title, Watched: i.Watched, State: i.State, Refusal: i.Refusal}
}

// tabChange is the engine's Change in cdproto's types.
func tabChange(c engine.Change) TabChange {
	return TabChange{Kind: TabChangeKind(c.Kind), Tab: tabInfo(c.Tab), Missed: c.Missed}
}
