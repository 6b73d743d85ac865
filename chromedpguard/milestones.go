package chromedpguard

import "github.com/tabguard/tabguard/tabstate"

// Milestone is a point in a document's life that Chrome reports, such as
// its first meaningful paint or an idle network; ORed together, milestones
// make the set that [TabState].Milestones holds for the main frame's
// current document, and [TabState].Reached tests. See [tabstate.Milestone].
type Milestone = tabstate.Milestone

// The milestones, in the order a document usually reaches them; see
// [tabstate.Milestone].
const (
	// DOMContentLoaded: the document's HTML is parsed.
	DOMContentLoaded = tabstate.DOMContentLoaded
	// FirstContentfulPaint: the page painted text or an image.
	FirstContentfulPaint = tabstate.FirstContentfulPaint
	// FirstMeaningfulPaint: the paint of the page's main content.
	FirstMeaningfulPaint = tabstate.FirstMeaningfulPaint
	// NetworkAlmostIdle: at most two network connections for 500 ms.
	NetworkAlmostIdle = tabstate.NetworkAlmostIdle
	// NetworkIdle: no network connection for 500 ms.
	NetworkIdle = tabstate.NetworkIdle
)
