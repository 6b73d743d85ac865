package engine

import (
	"context"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// Lifecycle events (Page.lifecycleEvent) tell the tab's state machine the
// milestones of the main frame's document: DOMContentLoaded, its paints,
// network idle (tabstate.Milestone). Chrome sends them only once
// Page.setLifecycleEventsEnabled enabled them on the tab's session, and
// enabling them tells again the milestones the current document has
// reached, but its paints. Every start enables them, as chromedp does on
// every tab it attaches to: they cost a navigation about twenty small
// events (an iframe's included) and an eval nothing, and a program that
// waits for a milestone has no option to forget. They stay enabled after
// Close, as Network does: a program of the tab's may use them too.
//
// The call goes to the renderer, which holds it while the tab is busy,
// crashed or in its first load, so the start sends it with its probes
// (start.go), and a tab that does not answer them in time enables them
// later.

// lifecycleParams is Page.setLifecycleEventsEnabled's.
type lifecycleParams struct {
	Enabled bool `json:"enabled"`
}

// enableLifecycle asks Chrome for the tab's lifecycle events.
func (t *Tab) enableLifecycle(ctx context.Context) error {
	return t.s.Call(ctx, "Page.setLifecycleEventsEnabled", lifecycleParams{Enabled: true}, nil)
}

// enableLifecycleLater is enableLifecycle once the renderer answers, as
// enableNetworkLater is. t.mu must be held and t not closed.
func (t *Tab) enableLifecycleLater() {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		_ = t.enableLifecycle(t.life)
	}()
}

// waited completes doing, what a tab whose wait ran out of time was
// doing (cause), with how far its document got: the milestones Chrome
// reported for it and the ones it did not, and, when the page answers and
// its state shows that one will not come, why. Chrome reports first
// meaningful paint when the network of a document that painted grows
// almost idle, or never (measured on Chromium 156: a page that paints only
// after its network went quiet has none). A page whose script holds its
// main thread sends no milestone it reaches meanwhile, so there the list
// is what Chrome had reported, and nothing is said of what will come.
func waited(doing string, s tabstate.State, cause tabstate.TimeoutCause) string {
	if !s.Committed {
		return doing
	}
	steps := []struct {
		name string
		ok   bool
	}{
		{"DOMContentLoaded", s.Reached(tabstate.DOMContentLoaded)},
		{"the load event", s.Loaded},
		{"first contentful paint", s.Reached(tabstate.FirstContentfulPaint)},
		{"first meaningful paint", s.Reached(tabstate.FirstMeaningfulPaint)},
		{"network almost idle", s.Reached(tabstate.NetworkAlmostIdle)},
		{"network idle", s.Reached(tabstate.NetworkIdle)},
	}
	var reached, missing []string
	for _, st := range steps {
		if st.ok {
			reached = append(reached, st.name)
		} else {
			missing = append(missing, st.name)
		}
	}
	var b strings.Builder
	b.WriteString(doing)
	if len(reached) == 0 {
		b.WriteString(", and Chrome had reported no milestone of its document: it is still loading")
		return b.String()
	}
	b.WriteString(", and Chrome had reported its document's " + list(reached, "and"))
	if len(missing) > 0 {
		b.WriteString(", not " + list(missing, "or"))
	}
	if cause == tabstate.TimeoutUnsettled && s.Reached(tabstate.NetworkAlmostIdle) && !s.Reached(tabstate.FirstMeaningfulPaint) {
		b.WriteString(": Chrome reports first meaningful paint as the network grows almost idle after a meaningful paint," +
			" so this document will not have one")
	}
	return b.String()
}

// list joins words as a sentence does: "a, b and c", with and or or.
func list(words []string, and string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}
