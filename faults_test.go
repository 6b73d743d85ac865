package tabguard_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// rowTimeout is the EvalTimeout of rows that wait it out. The matrix
// asserts no time (the machine is shared): a refusal must be a
// *BlockedError, which the state machine gives without waiting, and a
// timeout must name its own limit; each row logs its real time, and
// scripts/bench measures it.
const rowTimeout = 600 * time.Millisecond

// faultRow is one way a tab can wedge an eval. fault brings the tab into it
// and returns what the eval under test gave; recover makes the next eval
// succeed and returns the watcher to evaluate on (a new one for a closed
// tab or a dead browser).
type faultRow struct {
	name      string
	opts      tabguard.Options
	dedicated bool   // needs a browser of its own
	discards  bool   // needs a browser of its own with chrome://discards on
	path      string // page loaded before the fault; "" is "/", "-" is a blank tab
	fault     func(t *testing.T, f *fixture) outcome
	want      error                 // sentinel the eval matches, nil for a result
	msg       []string              // substrings of the error, or of the result as a string
	cause     tabguard.TimeoutCause // for a timeout: what the watcher found
	fast      bool                  // answered by the tab's state, never by the eval's deadline
	recover   func(t *testing.T, f *fixture) *tabguard.Watcher
}

func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	for _, tt := range faultRows() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fixture{srv: serve(t)}
			switch {
			case tt.discards:
				b, err := testbrowser.LaunchDiscardable()
				require.NoError(t, err)
				t.Cleanup(b.Close)
				f.b = b
			case tt.dedicated:
				f.b = dedicated(t)
			default:
				f.b = testbrowser.Shared(t)
			}
			f.page = testbrowser.NewPage(t, f.b)
			if tt.path != "-" {
				require.NoError(t, navigate(t, f.page, f.srv.URL+tt.path))
			}
			if tt.opts.EvalTimeout == 0 {
				tt.opts.EvalTimeout = rowTimeout
			}
			f.w, f.timeout = watch(t, f.page, &tt.opts), tt.opts.EvalTimeout

			got := tt.fault(t, f)
			checkOutcome(t, tt, got)

			w := f.w
			if tt.recover != nil {
				w = tt.recover(t, f)
			}
			// At once: the recovery has returned, so the watcher knows.
			res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 6 * 7`)
			require.NoError(t, err, "eval after recovery")
			assert.Equal(t, 42, res.Value.Int())
		})
	}
}

// checkOutcome asserts a row's sentinel, message and cause. It asserts no
// time: a refusal is a *BlockedError, which the state machine gives without
// waiting, and a timeout names its own limit, so no other deadline ended it.
// The time is logged.
func checkOutcome(t *testing.T, tt faultRow, got outcome) {
	t.Helper()
	if tt.want == nil {
		require.NoError(t, got.err)
		for _, m := range tt.msg {
			require.NotNil(t, got.res, "no result")
			assert.Contains(t, fmt.Sprint(got.res.Value), m)
		}
	} else {
		require.Error(t, got.err)
		require.ErrorIs(t, got.err, tt.want, "error: %v", got.err)
		for _, m := range tt.msg {
			assert.Contains(t, got.err.Error(), m)
		}
		var be *tabguard.BlockedError
		var te *tabguard.TimeoutError
		if errors.As(got.err, &te) {
			// The eval's own deadline ended it, not the test's.
			assert.Equal(t, tt.opts.EvalTimeout, te.Limit, "the eval's own timeout")
			assert.Equal(t, tt.cause, te.Cause, "what the watcher found: %v", got.err)
		} else {
			assert.ErrorAs(t, got.err, &be, "a refusal is a *BlockedError")
		}
	}
	if tt.fast {
		assert.NotErrorIs(t, got.err, tabguard.ErrEvalTimeout, "answered by the tab's state, not by the deadline")
	}
	t.Logf("%s: %v in %v", tt.name, got.err, got.elapsed.Round(time.Millisecond))
}

// refused evaluates on a tab that f's watcher already refuses.
func refused(reason error) func(t *testing.T, f *fixture) outcome {
	return func(t *testing.T, f *fixture) outcome {
		f.waitBlocked(t, reason)
		return f.eval(t, `() => 1`)
	}
}

// handleDialog accepts the open dialog, typing text into a prompt.
func handleDialog(t *testing.T, f *fixture) *tabguard.Watcher {
	require.NoError(t, f.w.HandleDialog(testbrowser.Context(t, 10*time.Second), true, "tabguard"))
	return f.w
}

func reloadTab(t *testing.T, f *fixture) *tabguard.Watcher {
	require.NoError(t, f.w.Reload(testbrowser.Context(t, 10*time.Second)))
	return f.w
}

func navigateHome(t *testing.T, f *fixture) *tabguard.Watcher {
	require.NoError(t, f.w.Navigate(testbrowser.Context(t, 10*time.Second), f.srv.URL))
	return f.w
}

func newTab(t *testing.T, f *fixture) *tabguard.Watcher {
	page := testbrowser.NewPage(t, f.b)
	require.NoError(t, navigate(t, page, f.srv.URL))
	return watch(t, page, nil)
}

func faultRows() []faultRow {
	rows := append(crashRows(), scriptRows()...)
	rows = append(rows, dialogRows()...)
	rows = append(rows, loadRows()...)
	rows = append(rows, lifecycleRows()...)
	rows = append(rows, silentRows()...)
	return append(rows, goneRows()...)
}

func crashRows() []faultRow {
	crashMsg := "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)"
	return []faultRow{
		{
			name: "renderer crash idle",
			fault: func(t *testing.T, f *fixture) outcome {
				crash(t, f.page)
				return refused(tabguard.ErrTabCrashed)(t, f)
			},
			want: tabguard.ErrTabCrashed, msg: []string{crashMsg}, fast: true, recover: reloadTab,
		},
		{
			name: "renderer crash in flight",
			opts: tabguard.Options{EvalTimeout: 20 * time.Second},
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				crash(t, f.page) // returns once Chrome reported the crash
				return wait(time.Now())
			},
			// Cut short by the first crash event, the status from the second.
			want: tabguard.ErrTabCrashed, msg: []string{crashMsg}, fast: true, recover: reloadTab,
		},
		{
			name:      "renderer SIGKILL",
			dedicated: true,
			opts:      tabguard.Options{EvalTimeout: 20 * time.Second},
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				reported := crashReported(t, f)
				t.Logf("killed %d renderer processes", killRenderers(t, f.b))
				reported()
				return wait(time.Now())
			},
			want: tabguard.ErrTabCrashed, msg: []string{"tab renderer crashed (reason: killed): reload the tab (Watcher.Reload)"},
			fast: true, recover: reloadTab,
		},
	}
}

func scriptRows() []faultRow {
	return []faultRow{
		{
			name: "while(true)",
			fault: func(t *testing.T, f *fixture) outcome {
				return f.eval(t, `() => { while (true) {} }`)
			},
			want:  tabguard.ErrEvalTimeout,
			msg:   []string{"eval timed out after 600ms", "busy running script on committed page", "Options.TerminateOnTimeout"},
			cause: tabguard.TimeoutBusyScript,
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				_, err := f.w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
				require.ErrorIs(t, err, tabguard.ErrEvalTimeout, "the loop must still hold the tab")
				f.call(t, proto.RuntimeTerminateExecution{})
				return f.w
			},
		},
		{
			name: "while(true) with TerminateOnTimeout",
			opts: tabguard.Options{TerminateOnTimeout: true},
			fault: func(t *testing.T, f *fixture) outcome {
				return f.eval(t, `() => { while (true) {} }`)
			},
			want:  tabguard.ErrEvalTimeout,
			msg:   []string{"eval timed out after 600ms", "busy running script on committed page", "terminat"},
			cause: tabguard.TimeoutBusyScript,
			// no recovery step: the tab answers the next eval as it is
		},
		{
			name: "terminated by another eval",
			opts: tabguard.Options{TerminateOnTimeout: true},
			// A promise that never settles times out while a second eval's
			// loop holds the page, so its TerminateOnTimeout stops that loop.
			fault: func(t *testing.T, f *fixture) outcome {
				first := f.evalAsync(t, `() => new Promise(() => {})`)
				second := f.evalAsync(t, `() => { const end = Date.now() + 5000; while (Date.now() < end) {} }`)
				got := second(time.Now())
				out := first(time.Now())
				require.ErrorIs(t, out.err, tabguard.ErrEvalTimeout)
				require.Contains(t, out.err.Error(), "terminat")
				return got
			},
			want: tabguard.ErrTerminated, msg: []string{"eval's script was terminated by Runtime.terminateExecution: retry the eval"},
			fast: true,
		},
		{
			name: "promise never settles",
			// In a shared browser a newer tab may hide this one, and the
			// watcher would rightly find it hidden.
			dedicated: true,
			fault: func(t *testing.T, f *fixture) outcome {
				return f.eval(t, `() => new Promise(() => {})`)
			},
			want:  tabguard.ErrEvalTimeout,
			msg:   []string{"eval timed out after 600ms", "answers, but the eval's promise never settled"},
			cause: tabguard.TimeoutUnsettled,
		},
		{
			name: "debugger statement while paused",
			opts: tabguard.Options{EvalTimeout: 10 * time.Second}, // the pause, not the timer, must end the eval
			fault: func(t *testing.T, f *fixture) outcome {
				// Someone else debugs the page: the watcher never enables Debugger.
				_, err := proto.DebuggerEnable{}.Call(f.page.Context(testbrowser.Context(t, 5*time.Second)))
				require.NoError(t, err)
				t.Cleanup(func() { _ = proto.DebuggerDisable{}.Call(f.page.Context(testbrowser.Context(t, 5*time.Second))) })
				wait := f.evalAsync(t, `() => { debugger; return 1 }`)
				got := wait(time.Now().Add(-200 * time.Millisecond))
				require.ErrorIs(t, got.err, tabguard.ErrPaused, "the eval that hit the statement")
				return f.eval(t, `() => 1`)
			},
			want: tabguard.ErrPaused,
			msg:  []string{"tab is paused in the debugger (reason: other): resume it with Debugger.resume (proto.DebuggerResume)"},
			fast: true,
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				f.call(t, proto.DebuggerResume{})
				return f.w
			},
		},
	}
}

func dialogRows() []faultRow {
	hint := "accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs"
	return []faultRow{
		{
			name: "alert open",
			// The eval itself opens the dialog and is cut short by it.
			fault: func(t *testing.T, f *fixture) outcome {
				return f.eval(t, `() => alert("hello from alert")`)
			},
			want: tabguard.ErrDialogOpen, msg: []string{`tab has a JavaScript dialog open: alert "hello from alert": ` + hint},
			fast: true, recover: handleDialog,
		},
		{
			name: "confirm open",
			// The page opens the dialog; the next eval is refused up front.
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `setTimeout(() => confirm("sure?"), 0)`)
				return refused(tabguard.ErrDialogOpen)(t, f)
			},
			want: tabguard.ErrDialogOpen, msg: []string{`confirm "sure?": ` + hint},
			fast: true, recover: handleDialog,
		},
		{
			name: "prompt open",
			// The page opens the dialog while an eval waits on a timer.
			opts: tabguard.Options{EvalTimeout: 20 * time.Second},
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				start := time.Now()
				f.runJS(t, `setTimeout(() => prompt("your name?", "x"), 0)`)
				return wait(start)
			},
			want: tabguard.ErrDialogOpen, msg: []string{`prompt "your name?": ` + hint},
			fast: true,
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				handleDialog(t, f)
				return f.w
			},
		},
	}
}
