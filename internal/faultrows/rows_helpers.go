package faultrows

import (
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// helperRows are the guarded helpers that programs use besides an eval:
// the cookies the browser process answers, and a screenshot.
func helperRows() []Row {
	return []Row{
		{
			// Network.getCookies is answered by the browser process: a
			// crashed renderer does not hold it (measured on Chromium 156).
			// The reload after it starts a new renderer, which needs more
			// than the default timeout on a loaded machine.
			Name: "cookies of a crashed tab", EvalTimeout: 5 * time.Second,
			Msg:  []string{"tabguard=1"},
			Fast: true,
		},
		{
			// A loop the page started holds the renderer, which a capture
			// needs: the screenshot times out, names itself and the cause,
			// and TerminateOnTimeout stops the loop.
			Name: "screenshot while the page loops", TerminateOnTimeout: true,
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"screenshot timed out after 2s", "busy running script on committed page", "script terminated"},
			Cause: tabstate.TimeoutBusyScript,
		},
		{
			// A PDF needs the renderer too: on one hung outside JavaScript
			// it times out naming the cause, and Recover crashes the
			// renderer and reloads the tab, which then prints.
			Name: "PDF of a hung renderer", Browser: Dedicated,
			Want: tabstate.ErrEvalTimeout,
			Msg: []string{"PDF timed out after 2s (renderer of page http://127.0.0.1:", "answers nothing, not even an interrupt",
				"Watcher.Recover dismisses a dialog, or crashes the renderer and reloads the tab, keeping its history"},
			Cause: tabstate.TimeoutHung,
		},
	}
}
