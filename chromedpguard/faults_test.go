package chromedpguard_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// cdpFault brings one row of the shared fault matrix (package faultrows)
// about on chromedp. fault returns what the call under test gave; recover
// makes the next eval succeed and returns the watcher to evaluate on (a
// new one for a closed tab or a dead browser); nil needs no step.
type cdpFault struct {
	fault   func(t *testing.T, f *fixture) outcome
	recover func(t *testing.T, f *fixture) *chromedpguard.Watcher
}

// TestFaultMatrix runs the rows of faultrows.Matrix on chromedp (every
// row in a full run, make test-more; faultrows.Smoke in make test), as the
// root package's TestFaultMatrix runs every row on rod: the row says what
// the answer must be (faultrows.Check); the fault and the recovery are
// chromedp's own, by the row's name.
func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	faults := cdpFaults()
	for _, problem := range faultrows.Missing(faultrows.Chromedp, faults) {
		t.Error(problem)
	}
	for _, row := range faultrows.Matrix(faultrows.Chromedp) {
		t.Run(row.Name, func(t *testing.T) {
			if row.Chromedp.Skip != "" {
				t.Skip("not run on chromedp: " + row.Chromedp.Skip)
			}
			cf, ok := faults[row.Fault()]
			if !ok {
				return // reported above
			}
			t.Parallel()
			f := &fixture{srv: serve(t), timeout: row.Timeout()}
			switch row.BrowserOn(faultrows.Chromedp) {
			case faultrows.Discardable:
				ctx, stop, err := launchDiscardable()
				require.NoError(t, err, "start Chromium")
				t.Cleanup(stop)
				f.browser = ctx
			case faultrows.Dedicated:
				f.browser = dedicated(t)
			case faultrows.Isolated:
				f.browser = sharedIsolated(t)
			case faultrows.IsolatedOwn:
				f.browser = dedicatedIsolated(t)
			case faultrows.Headed:
				b := sharedHeaded(t)
				f.browser, f.home = b.ctx, b.home
			case faultrows.HeadedOwn:
				b := dedicatedHeaded(t)
				f.browser, f.home = b.ctx, b.home
			default:
				f.browser = sharedBrowser
			}
			if row.Browser.IsHeaded() {
				f.tab = newWindow(t, f.browser)
				requireHeaded(t, f.tab)
			} else {
				f.tab = newTab(t, f.browser)
			}
			opts := &chromedpguard.Options{EvalTimeout: row.Timeout(), TerminateOnTimeout: row.TerminateOnTimeout}
			if row.WatchFirst {
				// The load is not waited for: a page with an iframe that
				// never loads never fires its load event.
				f.w = watch(t, f.tab, opts)
				require.NoError(t, f.navigate(t, f.tabWithin(t, 10*time.Second), f.srv.URL+row.Path))
			} else {
				if row.Path != "-" {
					require.NoError(t, f.navigate(t, f.tabWithin(t, 10*time.Second), f.srv.URL+row.Path))
					// Page.navigate answers before the commit: the row's fault
					// starts on a loaded page, as on rod.
					f.waitLoaded(t)
				}
				f.w = watch(t, f.tab, opts)
			}

			faultrows.Check(t, row, faultrows.Chromedp, cf.fault(t, f).shared())

			w := f.w
			if cf.recover != nil {
				w = cf.recover(t, f)
			}
			// At once: the recovery has returned, so the watcher knows.
			res, err := w.Eval(within(t, 10*time.Second), `() => 6 * 7`)
			require.NoError(t, err, "eval after recovery")
			assert.Equal(t, "42", string(res.Value))
		})
	}
}

// cdpFaults are chromedp's faults and recoveries, by row name.
func cdpFaults() map[string]cdpFault {
	all := crashFaults()
	for _, m := range []map[string]cdpFault{scriptFaults(), dialogFaults(), loadFaults(), lifecycleFaults(), navPendingFaults(), silentFaults(), helperFaults(), goneFaults(), frameFaults(), promptFaults()} {
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

func reloadTab(t *testing.T, f *fixture) *chromedpguard.Watcher {
	require.NoError(t, f.w.Reload(within(t, 10*time.Second)))
	return f.w
}

func navigateHome(t *testing.T, f *fixture) *chromedpguard.Watcher {
	require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL))
	return f.w
}

// handleDialog accepts the open dialog, typing text into a prompt.
func handleDialog(t *testing.T, f *fixture) *chromedpguard.Watcher {
	require.NoError(t, f.w.HandleDialog(within(t, 10*time.Second), true, "tabguard"))
	return f.w
}

func crashFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"renderer crash idle": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.crash(t)
				return refused(chromedpguard.ErrTabCrashed)(t, f)
			},
			recover: reloadTab,
		},
		"renderer crash in flight": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				start := time.Now()
				f.crash(t) // returns once the watcher has the crash's status, after the first event cut the eval short
				return wait(start)
			},
			recover: reloadTab,
		},
		"renderer SIGKILL": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
				reported := f.crashReported(t)
				t.Logf("killed %d renderer processes", f.killRenderers(t))
				reported()
				return wait(time.Now())
			},
			recover: reloadTab,
		},
	}
}

func scriptFaults() map[string]cdpFault {
	loop := func(t *testing.T, f *fixture) outcome { return f.eval(t, `() => { while (true) {} }`) }
	return map[string]cdpFault{
		"while(true)": {
			fault: loop,
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				_, err := f.w.Eval(within(t, 5*time.Second), `() => 1`)
				require.ErrorIs(t, err, chromedpguard.ErrEvalTimeout, "the loop must still hold the tab")
				r, err := f.w.Recover(within(t, 10*time.Second))
				require.NoError(t, err)
				assert.Equal(t, chromedpguard.TerminatedScript, r.Action, "the advice: Recover stops the script")
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
				require.ErrorIs(t, out.err, chromedpguard.ErrEvalTimeout)
				require.Contains(t, out.err.Error(), "terminat")
				return got
			},
		},
		"promise never settles": {
			fault: func(t *testing.T, f *fixture) outcome { return f.eval(t, `() => new Promise(() => {})`) },
		},
	}
}

func dialogFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"alert open": {
			fault: func(t *testing.T, f *fixture) outcome {
				return f.eval(t, `() => alert("hello from alert")`)
			},
			recover: handleDialog,
		},
		"confirm open": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.runJS(t, `setTimeout(() => confirm("sure?"), 0)`)
				return refused(chromedpguard.ErrDialogOpen)(t, f)
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
		"debugger statement while paused": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Someone else debugs the page: the watcher never enables Debugger.
				_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), debugger.Enable, debugger.EnableParams{})
				require.NoError(t, err)
				t.Cleanup(func() {
					ctx, cancel := context.WithTimeout(f.tab, 5*time.Second)
					defer cancel()
					_, _ = chromedp.Call(ctx, debugger.Disable, cdp.Empty{})
				})
				wait := f.evalAsync(t, `() => { debugger; return 1 }`)
				got := wait(time.Now().Add(-200 * time.Millisecond))
				require.ErrorIs(t, got.err, chromedpguard.ErrPaused, "the eval that hit the statement")
				return f.eval(t, `() => 1`)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), debugger.Resume, debugger.ResumeParams{})
				require.NoError(t, err)
				return f.w
			},
		},
	}
}
