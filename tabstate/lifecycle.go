package tabstate

import (
	"strconv"
	"strings"
)

// Milestone is a point in a document's life that Chrome reports with
// Page.lifecycleEvent; ORed together, milestones make a set, as
// [State].Milestones holds them. Chrome reports more lifecycle events than
// these: the ones left out are its own bookkeeping ("init", "commit"), the
// load event (which [State].Loaded tells, also of a page loaded before the
// watcher came), and paints that say less than first contentful paint
// ("firstPaint", "firstImagePaint", "firstMeaningfulPaintCandidate").
//
// Chrome sends lifecycle events once Page.setLifecycleEventsEnabled has
// enabled them on the tab's session; enabling them again replays
// DOMContentLoaded and the network milestones the current document has
// reached, but not its paints. Measured on Chromium 156, a small page
// reaches DOMContentLoaded before its load event and its paints right
// after it; the network milestones come about half a second after its last
// request ends, and firstMeaningfulPaint with them, for a document that
// painted before: one that paints only later, or never, has none.
type Milestone uint8

// The milestones, in the order a document usually reaches them.
const (
	// DOMContentLoaded is Chrome's "DOMContentLoaded": the document's HTML
	// is parsed and its deferred scripts ran; images and iframes may still
	// be loading.
	DOMContentLoaded Milestone = 1 << iota
	// FirstContentfulPaint is Chrome's "firstContentfulPaint": the page
	// painted text or an image for the first time.
	FirstContentfulPaint
	// FirstMeaningfulPaint is Chrome's "firstMeaningfulPaint": the paint
	// that Chrome took to show the page's main content, reported once the
	// network is almost idle, and only when the document painted by then:
	// a page that paints later (a script that renders after its requests
	// end) never has one. Wait for FirstContentfulPaint|NetworkIdle to
	// wait for any page's content.
	FirstMeaningfulPaint
	// NetworkAlmostIdle is Chrome's "networkAlmostIdle": the document has
	// had at most two network connections for 500 ms.
	NetworkAlmostIdle
	// NetworkIdle is Chrome's "networkIdle": the document has had no
	// network connection for 500 ms.
	NetworkIdle
)

// milestones names each Milestone, in Chrome's words and in Go's.
var milestones = [...]struct {
	m         Milestone
	cdp, name string
}{
	{DOMContentLoaded, "DOMContentLoaded", "DOMContentLoaded"},
	{FirstContentfulPaint, "firstContentfulPaint", "FirstContentfulPaint"},
	{FirstMeaningfulPaint, "firstMeaningfulPaint", "FirstMeaningfulPaint"},
	{NetworkAlmostIdle, "networkAlmostIdle", "NetworkAlmostIdle"},
	{NetworkIdle, "networkIdle", "NetworkIdle"},
}

// milestoneOf returns the Milestone of Chrome's lifecycle event name, or 0
// for a name that is none.
func milestoneOf(name string) Milestone {
	for _, n := range milestones {
		if n.cdp == name {
			return n.m
		}
	}
	return 0
}

// String names the milestones of m joined by "|", such as
// "DOMContentLoaded|NetworkIdle", or "none" for an empty set.
func (m Milestone) String() string {
	var names []string
	for _, n := range milestones {
		if m&n.m != 0 {
			names = append(names, n.name)
		}
	}
	if rest := m &^ (DOMContentLoaded | FirstContentfulPaint | FirstMeaningfulPaint | NetworkAlmostIdle | NetworkIdle); rest != 0 {
		names = append(names, "Milestone("+strconv.Itoa(int(rest))+")")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// Reached reports whether the main frame's committed document has reached
// every milestone in m: s.Reached(NetworkIdle|FirstContentfulPaint).
func (s State) Reached(m Milestone) bool { return s.Milestones&m == m }

// LifecycleEvent is Page.lifecycleEvent, sent once
// Page.setLifecycleEventsEnabled enabled it: the document LoaderID of
// frame FrameID reached the point Name, such as "DOMContentLoaded",
// "firstContentfulPaint" or "networkIdle". Only the main frame's count,
// and only the names of a [Milestone].
type LifecycleEvent struct{ FrameID, LoaderID, Name string }

func (LifecycleEvent) isEvent() {}

// lifecycle records a milestone of the main frame's committed document.
// One of another document is dropped: an older one's that trails its
// replacement, or a newer one's that comes before its commit. Before the
// tab has seen a commit, it takes the document of the first milestone for
// the one the owner asks about, and keeps its milestones for Learn until
// the owner has found it committed, as it keeps a load event.
func (t *Tab) lifecycle(e LifecycleEvent) Change {
	m := milestoneOf(e.Name)
	if m == 0 || t.MainFrame == "" || e.FrameID != t.MainFrame {
		return 0
	}
	s := &t.state
	c := Change(0)
	if e.LoaderID != t.lifeLoader {
		if t.committed != "" {
			return 0
		}
		t.lifeLoader, t.early = e.LoaderID, 0
		if s.Milestones != 0 {
			s.Milestones, c = 0, Changed
		}
	}
	if !s.Committed {
		if t.nav == nil {
			if t.earlyAt != t.seq+1 {
				t.early = 0
			}
			t.early, t.earlyAt = t.early|m, t.seq+1
		}
		return c
	}
	if s.Milestones&m != 0 {
		return c
	}
	s.Milestones |= m
	return Changed
}
