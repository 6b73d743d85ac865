package faultrows

import (
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// crashRows are renderers that die under the tab.
func crashRows() []Row {
	crashMsg := "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)"
	return []Row{
		{
			// The refusal is the state's; the recovery that follows (a
			// reload that starts a new renderer, 0.7 s on a 2-core
			// machine under load) needs more than the default.
			Name: "renderer crash idle", EvalTimeout: 5 * time.Second,
			Want: tabstate.ErrTabCrashed, Msg: []string{crashMsg}, Fast: true,
		},
		{
			// An eval waits on a 15 s timer under a 20 s deadline: only the
			// crash can end it sooner.
			Name: "renderer crash in flight", EvalTimeout: 20 * time.Second,
			Want: tabstate.ErrTabCrashed, Msg: []string{crashMsg}, Fast: true,
		},
		{
			// Every renderer of the browser is killed: it gets its own.
			Name: "renderer SIGKILL", Browser: Dedicated, EvalTimeout: 20 * time.Second,
			Want: tabstate.ErrTabCrashed, Msg: []string{"tab renderer crashed (reason: killed): reload the tab (Watcher.Reload)"},
			Fast: true,
		},
	}
}

// scriptRows are scripts that hold the page, and promises that never settle.
func scriptRows() []Row {
	return []Row{
		{
			Name:  "while(true)",
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s", "busy running script on committed page", "stop it with Watcher.Recover, which keeps the page, or set Options.TerminateOnTimeout"},
			Cause: tabstate.TimeoutBusyScript,
		},
		{
			Name: "while(true) with TerminateOnTimeout", TerminateOnTimeout: true,
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s", "busy running script on committed page", "terminat"},
			Cause: tabstate.TimeoutBusyScript,
		},
		{
			// A promise that never settles times out while a second eval's
			// loop holds the page, so its TerminateOnTimeout stops that loop.
			// The first eval's deadline comes while the second's loop runs,
			// with seconds to spare either side on a loaded machine.
			Name: "terminated by another eval", TerminateOnTimeout: true, EvalTimeout: 4 * time.Second,
			Want: tabstate.ErrTerminated, Msg: []string{"eval's script was terminated by Runtime.terminateExecution: retry the eval"},
			Fast: true,
		},
		{
			// In a shared browser a newer tab may hide this one, and the
			// watcher would rightly find it hidden.
			Name: "promise never settles", Browser: Dedicated,
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s", "answers, but the eval's promise never settled"},
			Cause: tabstate.TimeoutUnsettled,
		},
	}
}

// dialogRows are JavaScript dialogs, which hold every page command.
func dialogRows() []Row {
	hint := "accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs"
	return []Row{
		{
			// The eval itself opens the dialog and is cut short by it.
			Name: "alert open",
			Want: tabstate.ErrDialogOpen, Msg: []string{`tab has a JavaScript dialog open: alert "hello from alert": ` + hint},
			Fast: true,
		},
		{
			// The page opens the dialog; the next eval is refused up front.
			Name: "confirm open",
			Want: tabstate.ErrDialogOpen, Msg: []string{`confirm "sure?": ` + hint},
			Fast: true,
		},
		{
			// The page opens the dialog while an eval waits on a timer.
			Name: "prompt open", EvalTimeout: 20 * time.Second,
			Want: tabstate.ErrDialogOpen, Msg: []string{`prompt "your name?": ` + hint},
			Fast: true,
		},
	}
}

// debuggerRow is a page paused in the debugger by another client's
// Debugger domain: the watcher never enables it.
func debuggerRow() Row {
	return Row{
		// The pause, not the timer, must end the eval.
		Name: "debugger statement while paused", EvalTimeout: 10 * time.Second,
		Want:     tabstate.ErrPaused,
		Msg:      []string{"tab is paused in the debugger (reason: other): resume it with Debugger.resume"},
		Fast:     true,
		Chromedp: Diff{Note: "the advice names the CDP method, Debugger.resume, for both backends: chromedp's call is debugger.Resume"},
	}
}
