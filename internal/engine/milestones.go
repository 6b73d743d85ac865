package engine

import "context"

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
