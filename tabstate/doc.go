// Package tabstate turns a browser tab's Chrome DevTools Protocol events into
// what is known of its health, and says whether an eval on it may proceed.
//
// It imports no browser driver: the rod watcher of package tabguard, the
// chromedp guard and raw-CDP programs all feed it the same events. Each
// event is a small typed value ([TargetCrashed], [NavigationStarted],
// [FrameNavigated], ...); [Decode] builds one from a CDP method name and its
// raw JSON params. A [Tab] applies them in the order Chrome sent them and
// keeps the tab's [State]; [Blocked] turns a State into a refusal.
//
//	var tab tabstate.Tab
//	for msg := range events { // the tab's page-session events, in order
//		if ev, ok := tabstate.Decode(msg.Method, msg.Params); ok {
//			tab.Apply(ev)
//		}
//	}
//	if err := tabstate.Blocked(tab.State()); err != nil {
//		return err // e.g. "tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)"
//	}
//
// [PhaseOf] folds a State into one [Phase] (Loading, Committed, Loaded,
// NoDocument, DialogOpen, Paused, Crashed, Closed, Discarded, BrowserGone),
// in the order Blocked checks them. [Transitions] is the machine's own
// table of how each [Kind] of event moves a tab between phases; the tests
// hold Tab.Apply to it, and [Diagram] draws it for docs/lifecycle.md.
//
// Within a phase, State.Milestones holds the lifecycle milestones the main
// frame's document has reached ([DOMContentLoaded], [FirstContentfulPaint],
// [NetworkIdle], ...), from Page.lifecycleEvent, which Chrome sends once
// Page.setLifecycleEventsEnabled enabled it on the tab's session.
//
// A Tab is not safe for concurrent use: its owner applies events and reads
// the state under its own lock.
package tabstate
