package tabguard

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// Recovery is what [Watcher.Recover] found and did. See [tabstate.Recovery].
type Recovery = tabstate.Recovery

// RecoveryAction is what [Watcher.Recover] did. See [tabstate.RecoveryAction].
type RecoveryAction = tabstate.RecoveryAction

// What [Watcher.Recover] may do.
const (
	RecoveredNothing   = tabstate.RecoveredNothing
	DismissedDialog    = tabstate.DismissedDialog
	Reloaded           = tabstate.Reloaded
	TerminatedScript   = tabstate.TerminatedScript
	CrashedAndReloaded = tabstate.CrashedAndReloaded
	StoppedNavigation  = tabstate.StoppedNavigation
)

// Recover brings the tab back from whatever keeps it from answering, and
// says what it found and did, for a program or an agent to log:
//   - a JavaScript dialog is dismissed;
//   - a crashed tab, or one with no document (a load that failed, a
//     prompt that stopped it), is reloaded;
//   - a script that holds the page's main thread is stopped
//     (Runtime.terminateExecution), and the page kept as it is;
//   - a renderer that answers nothing, not even an interrupt (as under
//     chrome://hang), is crashed (Page.crash) and the tab reloaded, which
//     keeps its history, its sessionStorage and its cookies, where closing
//     the tab loses them;
//   - a navigation that has not committed, which holds the page's calls
//     meanwhile ([TimeoutNavigating]), is stopped (Page.stopLoading), and
//     the page it left kept.
//
// A tab that answers is left alone ([RecoveredNothing]). After a call
// that timed out on a busy script or a hung renderer, which its probes
// proved, Recover acts on what that call found at once; otherwise it asks
// the page, and telling a hung renderer takes Options.Patience, or three
// of the link's round trips if longer: that long with only the browser
// answering proves the hang. Nothing is done on a guess: when ctx ends
// before the page's answers prove anything, Recover does nothing and
// returns a [*TimeoutError] ([TimeoutUnknown]) saying what answered. Each
// step is bounded by ctx and Options.EvalTimeout. A closed or discarded
// tab, or a lost browser, cannot be brought back: Recover returns its
// refusal. The next call on
// the tab sees a recovery that succeeded.
func (w *Watcher) Recover(ctx context.Context) (Recovery, error) { return w.t.Recover(ctx) }
