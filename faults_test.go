package tabguard_test

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// rodFault brings one row of the shared fault matrix (package faultrows)
// about on rod. fault returns what the call under test gave; recover makes
// the next eval succeed and returns the watcher to evaluate on (a new one
// for a closed tab or a dead browser); nil needs no step.
type rodFault struct {
	fault   func(t *testing.T, f *fixture) outcome
	recover func(t *testing.T, f *fixture) *tabguard.Watcher
}

// TestFaultMatrix runs every row of faultrows.Rows on rod. The row says
// what the answer must be (faultrows.Check); the fault and the recovery
// are rod's own, by the row's name.
func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	faults := rodFaults()
	for _, problem := range faultrows.Missing(faultrows.Rod, faults) {
		t.Error(problem)
	}
	for _, row := range faultrows.Rows() {
		t.Run(row.Name, func(t *testing.T) {
			if row.Rod.Skip != "" {
				t.Skip("not run on rod: " + row.Rod.Skip)
			}
			rf, ok := faults[row.Fault()]
			if !ok {
				return // reported above
			}
			t.Parallel()
			f := rowFixture(t, row)

			faultrows.Check(t, row, faultrows.Rod, rf.fault(t, f).shared())

			w := f.w
			if rf.recover != nil {
				w = rf.recover(t, f)
			}
			// At once: the recovery has returned, so the watcher knows.
			res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 6 * 7`)
			require.NoError(t, err, "eval after recovery")
			assert.Equal(t, 42, res.Value.Int())
		})
	}
}

// rowFixture opens the row's tab, in the browser the row names, at its
// path, watched as the row says.
func rowFixture(t *testing.T, row faultrows.Row) *fixture {
	t.Helper()
	f := &fixture{srv: serve(t), timeout: row.Timeout()}
	switch row.BrowserOn(faultrows.Rod) {
	case faultrows.Discardable:
		b, err := testbrowser.LaunchDiscardable()
		require.NoError(t, err)
		t.Cleanup(b.Close)
		f.b = b
	case faultrows.Dedicated:
		f.b = dedicated(t)
	case faultrows.Isolated:
		f.b = testbrowser.SharedIsolated(t)
	case faultrows.IsolatedOwn:
		b, err := testbrowser.LaunchSiteIsolated()
		require.NoError(t, err)
		t.Cleanup(b.Close)
		f.b = b
	case faultrows.Headed:
		f.b = testbrowser.SharedHeaded(t)
	case faultrows.HeadedOwn:
		f.b = testbrowser.Headed(t)
	default:
		f.b = testbrowser.Shared(t)
	}
	f.page = testbrowser.NewPage(t, f.b)
	if row.Browser.IsHeaded() {
		requireHeaded(t, f.page)
	}
	opts := &tabguard.Options{EvalTimeout: row.Timeout(), TerminateOnTimeout: row.TerminateOnTimeout}
	if row.WatchFirst {
		f.w = watch(t, f.page, opts)
	}
	if row.Path != "-" {
		// rod's Navigate may return before the new document commits: the
		// watcher may start while the tab's document is being replaced,
		// as a program's does after Navigate.
		require.NoError(t, navigate(t, f.page, f.srv.URL+row.Path))
	}
	if !row.WatchFirst {
		f.w = watch(t, f.page, opts)
	}
	return f
}

// requireHeaded fails t unless page is in a headed browser: the row must
// meet what headed Chrome draws, not headless Chrome's silent answers.
// It asks the browser, not the page: rod's default device overrides the
// page's navigator.userAgent, which then never reads "Headless".
func requireHeaded(t *testing.T, page *rod.Page) {
	t.Helper()
	v, err := proto.BrowserGetVersion{}.Call(page.Browser().Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
	require.NotContains(t, v.UserAgent, "Headless", "a headed browser's user agent")
}

// shared is the outcome as faultrows.Check takes it.
func (o outcome) shared() faultrows.Outcome {
	got := faultrows.Outcome{Err: o.err, Elapsed: o.elapsed}
	if o.res != nil {
		got.Result = fmt.Sprint(o.res.Value)
	}
	return got
}

// rodFaults are rod's faults and recoveries, by row name.
func rodFaults() map[string]rodFault {
	all := crashFaults()
	for _, m := range []map[string]rodFault{scriptFaults(), dialogFaults(), loadFaults(), lifecycleFaults(), navPendingFaults(), silentFaults(), helperFaults(), goneFaults(), frameFaults(), promptFaults()} {
		maps.Copy(all, m)
	}
	return all
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

func crashFaults() map[string]rodFault {
	return map[string]rodFault{
		"renderer crash idle": {
			fault: func(t *testing.T, f *fixture) outcome {
				crash(t, f.page)
				return refused(tabguard.ErrTabCrashed)(t, f)
			},
			recover: reloadTab,
		},
		"renderer crash in flight": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				crash(t, f.page) // returns once Chrome reported the crash
				// Cut short by the first crash event, the status from the second.
				return wait(time.Now())
			},
			recover: reloadTab,
		},
		"renderer SIGKILL": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				reported := crashReported(t, f)
				t.Logf("killed %d renderer processes", killRenderers(t, f.b))
				reported()
				return wait(time.Now())
			},
			recover: reloadTab,
		},
	}
}

func scriptFaults() map[string]rodFault {
	loop := func(t *testing.T, f *fixture) outcome { return f.eval(t, `() => { while (true) {} }`) }
	return map[string]rodFault{
		"while(true)": {
			fault: loop,
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				_, err := f.w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
				require.ErrorIs(t, err, tabguard.ErrEvalTimeout, "the loop must still hold the tab")
				r, err := f.w.Recover(testbrowser.Context(t, 10*time.Second))
				require.NoError(t, err)
				assert.Equal(t, tabguard.TerminatedScript, r.Action, "the advice: Recover stops the script")
				return f.w
			},
		},
		// no recovery step: the tab answers the next eval as it is
		"while(true) with TerminateOnTimeout": {fault: loop},
		"terminated by another eval": {
			fault: func(t *testing.T, f *fixture) outcome {
				first := f.evalAsync(t, `() => new Promise(() => {})`)
				// Later, so that the first's deadline, and the termination it
				// sends, come well before the second's: the loop starts within
				// 2.5 s and would run 8 s.
				time.Sleep(1500 * time.Millisecond)
				second := f.evalAsync(t, `() => { const end = Date.now() + 8000; while (Date.now() < end) {} }`)
				got := second(time.Now())
				out := first(time.Now())
				require.ErrorIs(t, out.err, tabguard.ErrEvalTimeout)
				require.Contains(t, out.err.Error(), "terminat")
				return got
			},
		},
		"promise never settles": {
			fault: func(t *testing.T, f *fixture) outcome { return f.eval(t, `() => new Promise(() => {})`) },
		},
		"debugger statement while paused": {
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
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				f.call(t, proto.DebuggerResume{})
				return f.w
			},
		},
	}
}

func dialogFaults() map[string]rodFault {
	return map[string]rodFault{
		"alert open": {
			fault: func(t *testing.T, f *fixture) outcome {
				return f.eval(t, `() => alert("hello from alert")`)
			},
			recover: handleDialog,
		},
		"confirm open": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `setTimeout(() => confirm("sure?"), 0)`)
				return refused(tabguard.ErrDialogOpen)(t, f)
			},
			recover: handleDialog,
		},
		"prompt open": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				start := time.Now()
				f.runJS(t, `setTimeout(() => prompt("your name?", "x"), 0)`)
				return wait(start)
			},
			recover: handleDialog,
		},
	}
}
