package faultrows

import (
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// navigateTimeout is the EvalTimeout of rows that answer at once and
// recover with Watcher.Navigate, which the EvalTimeout bounds: a
// navigation on a loaded machine can take longer than DefaultTimeout.
const navigateTimeout = 5 * time.Second

// loadRows are loads that fail, stall or never end.
func loadRows() []Row {
	again := ": navigate again (Watcher.Navigate)"
	return []Row{
		{
			// Long enough for the recovering navigation on a loaded machine.
			Name: "first load never answers", Path: "-", EvalTimeout: 2 * time.Second,
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s (tab still loading http://127.0.0.1:"},
			Cause: tabstate.TimeoutLoading,
		},
		{
			Name: "connection refused", Path: "-", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrNoDocument, Msg: []string{"tab has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:", again},
			Fast: true,
		},
		{
			Name: "unresolvable host", Path: "-", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrNoDocument, Msg: []string{"tab has no document: net::ERR_NAME_NOT_RESOLVED loading http://nonexistent.invalid/" + again},
			Fast: true,
		},
		{
			// Every eval answers while the body stalls.
			Name: "body stalls after headers", Path: "-",
			Msg: []string{"loading partial"}, Fast: true,
		},
		{
			Name: "reload every 50 ms", Path: "/reload50", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrNavigated, Msg: []string{"page navigated away during the eval (now at http://127.0.0.1:", "retry the eval"},
			Fast: true,
		},
		{
			Name: "reload as soon as parsed", Path: "-", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrNavigated, Msg: []string{"page navigated away during the eval", "retry the eval"},
			Fast: true,
		},
		{
			// Watcher.DOM answers with the first DefaultMaxDOMBytes; the
			// fault funcs check the cut themselves.
			Name: "5 MB DOM", Path: "/big?kb=5120", EvalTimeout: 10 * time.Second,
		},
	}
}

// lifecycleRows are the faults the watcher's own navigation calls meet.
func lifecycleRows() []Row {
	return []Row{
		{
			Name: "Navigate to a refused port", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrNoDocument, Msg: []string{"tab has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:", ": navigate again (Watcher.Navigate)"},
			Fast: true,
		},
		{
			Name:  "Navigate to a server that never answers",
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"navigate to http://127.0.0.1:", "/stall timed out after 2s (tab still loading http://127.0.0.1:", ": loading stopped)"},
			Cause: tabstate.TimeoutLoading,
		},
		{
			Name: "Navigate meets a beforeunload dialog",
			Want: tabstate.ErrDialogOpen, Msg: []string{`tab has a JavaScript dialog open: beforeunload "": accept or dismiss it (Watcher.HandleDialog)`},
			Fast: true,
		},
		{
			// chrome://hang hangs the renderer outside JavaScript: Recover
			// crashes it (Page.crash) and reloads the tab.
			Name: "renderer hung outside JavaScript", Browser: Dedicated,
			Want: tabstate.ErrEvalTimeout,
			Msg: []string{"eval timed out after 2s (renderer of page http://127.0.0.1:", "answers nothing, not even an interrupt",
				"Watcher.Recover dismisses a dialog, or crashes the renderer and reloads the tab, keeping its history"},
			Cause: tabstate.TimeoutHung,
		},
	}
}

// silentRows are tabs that stop running the page's work with no crash and,
// from Chrome, no event: the timeout says what the probes found.
func silentRows() []Row {
	return []Row{
		{
			// A tab opened elsewhere in the browser can end the freeze.
			Name: "tab frozen by another session", Browser: Dedicated,
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s", "answers, but the eval's promise never settled: the page is frozen, so it runs no timers: resume it with Page.setWebLifecycleState active"},
			Cause: tabstate.TimeoutFrozen,
			Rod:   Diff{Msg: []string{"Page.setWebLifecycleState active (proto.PageSetWebLifecycleState)"}},
			Chromedp: Diff{Msg: []string{"Page.setWebLifecycleState active (page.SetWebLifecycleState)"},
				Note: "the advice names cdproto's page.SetWebLifecycleState"},
		},
		{
			Name:  "background tab waits for an animation frame",
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s", "answers, but the eval's promise never settled: the page is hidden, as a background tab is, where requestAnimationFrame does not run: Page.bringToFront"},
			Cause: tabstate.TimeoutHidden,
			Rod:   Diff{Msg: []string{"Page.bringToFront (proto.PageBringToFront) shows it"}},
			Chromedp: Diff{Msg: []string{"Page.bringToFront (page.BringToFront) shows it"}, Dedicated: true,
				Note: "the advice names cdproto's page.BringToFront. chromedp gives every tab a window of its own, where no tab hides another: " +
					"the hiding tab opens with chromedp.WithNewWindow(false), in a browser of the row's own so that it lands in this tab's window"},
		},
		{
			Name: "tab discarded by the browser", Browser: Discardable,
			Want: tabstate.ErrTabDiscarded,
			Msg:  []string{"tab was discarded by the browser (replaced by target ", "): revive its replacement (TabState.ReplacedBy) with Target.activateTarget"},
			Fast: true,
			Chromedp: Diff{
				Note: "the advice names the CDP method, Target.activateTarget, for both backends: chromedp's call is target.ActivateTarget, " +
					"then chromedp.NewContext with chromedp.WithTargetID. Target.activateTarget revives a discarded tab only when it shares its window with another tab: " +
					"alone in its window (chromedp's default) it stays discarded, and chromedp's attach to it waits for ever in Runtime.enable, " +
					"so the tab that discards it here opens with chromedp.WithNewWindow(false)"},
		},
	}
}

// goneRows are tabs and browsers that are no more.
func goneRows() []Row {
	return []Row{
		{
			Name: "tab closed", EvalTimeout: 20 * time.Second,
			Want: tabstate.ErrTabClosed, Msg: []string{"tab is closed: open a new tab"},
			Fast: true,
		},
		{
			Name: "browser process killed", Browser: Dedicated, EvalTimeout: 20 * time.Second,
			Want: tabstate.ErrBrowserGone, Msg: []string{"browser is gone (", "): reconnect to or relaunch the browser"},
			Fast: true,
		},
	}
}
