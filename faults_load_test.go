package tabguard_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// loadFailed navigates to url, which must fail, and evaluates once the
// watcher has seen the failure.
func loadFailed(url func(t testing.TB) string) func(t *testing.T, f *fixture) outcome {
	return func(t *testing.T, f *fixture) outcome {
		require.Error(t, navigate(t, f.page, url(t)))
		return refused(tabguard.ErrNoDocument)(t, f)
	}
}

func loadFaults() map[string]rodFault {
	return map[string]rodFault{
		"first load never answers": {
			fault: func(t *testing.T, f *fixture) outcome {
				go func() { _ = navigate(t, f.page, f.srv.URL+"/stall") }()
				eventually(t, "the load to start", func() bool { return f.w.State().URL == f.srv.URL+"/stall" })
				out := f.eval(t, `() => 1`)
				assert.Contains(t, out.err.Error(), "tab still loading "+f.srv.URL+"/stall")
				return out
			},
			recover: navigateHome, // replaces the pending load
		},
		"connection refused": {fault: loadFailed(testbrowser.DeadURL), recover: navigateHome},
		"unresolvable host": {
			fault:   loadFailed(func(testing.TB) string { return "http://nonexistent.invalid/" }),
			recover: navigateHome,
		},
		"body stalls after headers": {
			fault: func(t *testing.T, f *fixture) outcome {
				require.NoError(t, navigate(t, f.page, f.srv.URL+"/trickle")) // commits on the headers
				// Every eval answers while the body stalls; the parser may
				// take a moment to reach the title.
				eventually(t, "the title to be parsed", func() bool {
					out := f.eval(t, `() => document.title`)
					require.NoError(t, out.err)
					return out.res.Value.Str() == "partial"
				})
				return f.eval(t, `() => document.readyState + " " + document.title`)
			},
			// nothing to recover: the page answers
		},
		"reload every 50 ms": {
			fault: func(t *testing.T, f *fixture) outcome {
				reloading(t, f, 30)
				return f.eval(t, `() => new Promise(r => setTimeout(r, 2000))`) // spans a reload
			},
			recover: navigateHome,
		},
		"reload as soon as parsed": {
			fault: func(t *testing.T, f *fixture) outcome {
				go func() { _ = navigate(t, f.page, f.srv.URL+"/reload-inline") }()
				eventually(t, "the reloads to start", func() bool { return strings.HasSuffix(f.w.State().URL, "/reload-inline") })
				reloading(t, f, 30)
				return f.eval(t, `() => new Promise(r => setTimeout(r, 2000))`)
			},
			recover: leaveReloadingPage,
		},
		"5 MB DOM": {fault: bigDOM},
	}
}

// bigDOM reads a 5 MB page with Watcher.DOM and checks the cut.
func bigDOM(t *testing.T, f *fixture) outcome {
	// Chrome takes seconds to load 5 MB on a busy machine.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => document.readyState`)
		if err == nil && res.Value.Str() == "complete" {
			break
		}
		require.True(t, time.Now().Before(deadline), "page not loaded after 30s: %v", err)
	}
	start := time.Now()
	dom, err := f.w.DOM(testbrowser.Context(t, 20*time.Second), 0)
	out := outcome{err: err, elapsed: time.Since(start)}
	require.NoError(t, err)
	assert.True(t, dom.Truncated)
	assert.Greater(t, dom.Size, 5<<20)
	assert.True(t, utf8.ValidString(dom.HTML), "cut inside a rune")
	notice := "\n<!-- truncated: showing "
	i := strings.LastIndex(dom.HTML, notice)
	require.Positive(t, i, "no truncation notice")
	assert.LessOrEqual(t, i, tabguard.DefaultMaxDOMBytes)
	assert.Contains(t, dom.HTML[i:], " of "+strconv.Itoa(dom.Size)+" bytes")
	assert.True(t, strings.HasPrefix(dom.HTML, `<html><head></head><body hidden=""><p>héllo wörld`), "not a prefix: %.40q", dom.HTML)
	return out
}

// reloading evaluates n short scripts on a tab that keeps reloading: each
// must answer in time, with its result or ErrNavigated.
func reloading(t *testing.T, f *fixture, n int) {
	t.Helper()
	ok := 0
	for i := range n {
		out := f.eval(t, `() => document.title`)
		if errors.Is(out.err, tabguard.ErrEvalTimeout) {
			var te *tabguard.TimeoutError
			require.ErrorAs(t, out.err, &te)
			assert.Equal(t, f.timeout, te.Limit, "eval %d: its own deadline ended it", i)
		}
		if out.err == nil {
			ok++
		} else {
			assert.ErrorIs(t, out.err, tabguard.ErrNavigated, "eval %d", i)
		}
	}
	t.Logf("%d/%d short evals answered with a result, the rest with ErrNavigated", ok, n)
}

// navigateTo calls Watcher.Navigate, the call under test, to path's URL.
func navigateTo(path func(t *testing.T, f *fixture) string) func(t *testing.T, f *fixture) outcome {
	return func(t *testing.T, f *fixture) outcome {
		start := time.Now()
		err := f.w.Navigate(testbrowser.Context(t, 30*time.Second), path(t, f))
		return outcome{err: err, elapsed: time.Since(start)}
	}
}

// lifecycleFaults are the faults the watcher's own navigation calls meet.
func lifecycleFaults() map[string]rodFault {
	return map[string]rodFault{
		"Navigate to a refused port": {
			fault:   navigateTo(func(t *testing.T, f *fixture) string { return testbrowser.DeadURL(t) }),
			recover: navigateHome,
		},
		// nothing to recover: the load was stopped, the page answers
		"Navigate to a server that never answers": {
			fault: navigateTo(func(t *testing.T, f *fixture) string { return f.srv.URL + "/stall" }),
		},
		"Navigate meets a beforeunload dialog": {
			fault: func(t *testing.T, f *fixture) outcome {
				// The handler must go on the page, not on the blank document
				// that rod's Navigate may return before replacing.
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				armBeforeUnload(t, f)
				return navigateTo(func(t *testing.T, f *fixture) string { return f.srv.URL + "/?next" })(t, f)
			},
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				require.NoError(t, f.w.HandleDialog(testbrowser.Context(t, 10*time.Second), false, "")) // stay
				return f.w
			},
		},
		"renderer hung outside JavaScript": {
			fault: func(t *testing.T, f *fixture) outcome {
				// chrome://hang hangs the renderer's main thread in C++: neither
				// an evaluate nor an interrupt is answered. rod reports the
				// navigation as ERR_ABORTED.
				// Chrome ignores it while the page is still loading.
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				_ = navigate(t, f.page, "chrome://hang")
				eventually(t, "the renderer to hang", func() bool {
					info, err := proto.TargetGetTargetInfo{TargetID: f.page.TargetID}.Call(f.b.Context(testbrowser.Context(t, 2*time.Second)))
					return err == nil && info.TargetInfo.URL == "chrome://hang/"
				})
				out := f.eval(t, `() => 1`)
				require.Error(t, out.err)
				assert.NotContains(t, out.err.Error(), "still loading")
				assert.NotContains(t, out.err.Error(), "TerminateOnTimeout")
				return out
			},
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				// The error's advice: Recover crashes the hung renderer and
				// reloads the tab.
				r, err := f.w.Recover(testbrowser.Context(t, 20*time.Second))
				require.NoError(t, err)
				assert.Equal(t, tabguard.CrashedAndReloaded, r.Action)
				return f.w
			},
		},
	}
}

// silentFaults are tabs that stop running the page's work with no crash
// and, from Chrome, no event: the timeout says what the probes found.
func silentFaults() map[string]rodFault {
	return map[string]rodFault{
		"tab discarded by the browser": discardFault(),
		"tab frozen by another session": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Chrome answers "Not attached to an active page" while the
				// first document commits.
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				other := otherSession(t, f)
				require.NoError(t, proto.PageEnable{}.Call(other))
				require.NoError(t, proto.PageSetWebLifecycleState{State: proto.PageSetWebLifecycleStateStateFrozen}.Call(other))
				// Chrome answers before the renderer has frozen; freezing
				// hides the page first.
				eventually(t, "the page to freeze", func() bool {
					res, err := proto.RuntimeEvaluate{Expression: "document.visibilityState"}.Call(other)
					return err == nil && res.Result.Value.Str() == "hidden"
				})
				return f.eval(t, `() => new Promise(r => setTimeout(() => r(1), 300))`)
			},
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				f.call(t, proto.PageSetWebLifecycleState{State: proto.PageSetWebLifecycleStateStateActive})
				return f.w
			},
		},
		"background tab waits for an animation frame": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Loaded first: the row is a loaded page that a tab hides.
				require.NoError(t, f.page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
				testbrowser.NewPage(t, f.b) // a new tab comes to front and hides this one
				return f.eval(t, `() => new Promise(r => requestAnimationFrame(() => r(1)))`)
			},
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				f.call(t, proto.PageBringToFront{})
				return f.w
			},
		},
	}
}

// discardFault is a tab the browser discards to save memory.
func discardFault() rodFault {
	return rodFault{
		fault: func(t *testing.T, f *fixture) outcome {
			ctx := testbrowser.Context(t, 20*time.Second)
			require.NoError(t, f.page.Context(ctx).WaitLoad())
			discards := testbrowser.NewPage(t, f.b)
			require.NoError(t, discards.Context(ctx).Navigate("chrome://discards"))
			res, err := discards.Context(ctx).Eval(testbrowser.DiscardJS, f.srv.URL)
			require.NoError(t, err)
			require.Equal(t, "discarded", res.Value.Str())
			f.waitBlocked(t, tabguard.ErrTabDiscarded)
			return f.eval(t, `() => 1`)
		},
		recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
			id := proto.TargetTargetID(f.w.State().ReplacedBy)
			require.NoError(t, proto.TargetActivateTarget{TargetID: id}.Call(f.b.Context(testbrowser.Context(t, 10*time.Second))))
			page, err := f.b.PageFromTarget(id)
			require.NoError(t, err)
			return watch(t, page, nil)
		},
	}
}

// otherSession attaches a second CDP session to f's tab, as another client
// (DevTools, a second program) would, and detaches it when t ends.
func otherSession(t *testing.T, f *fixture) session {
	t.Helper()
	ctx := testbrowser.Context(t, 5*time.Second)
	res, err := proto.TargetAttachToTarget{TargetID: f.page.TargetID, Flatten: true}.Call(f.b.Context(ctx))
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = proto.TargetDetachFromTarget{SessionID: res.SessionID}.Call(f.b.Context(testbrowser.Context(t, 5*time.Second)))
	})
	return session{b: f.b.Browser, id: res.SessionID, ctx: ctx}
}

// session sends CDP calls on one session of a tab: proto's calls take it.
type session struct {
	b   *rod.Browser
	id  proto.TargetSessionID
	ctx context.Context
}

func (s session) Call(ctx context.Context, _, method string, params any) ([]byte, error) {
	return s.b.Call(ctx, string(s.id), method, params)
}
func (s session) GetSessionID() proto.TargetSessionID { return s.id }
func (s session) GetContext() context.Context         { return s.ctx }

func goneFaults() map[string]rodFault {
	return map[string]rodFault{
		"tab closed": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(() => {})`)
				start := time.Now()
				_, err := proto.TargetCloseTarget{TargetID: f.page.TargetID}.Call(f.b.Context(testbrowser.Context(t, 5*time.Second)))
				require.NoError(t, err)
				inFlight := wait(start)
				require.ErrorIs(t, inFlight.err, tabguard.ErrTabClosed, "the eval in flight")
				t.Logf("the eval in flight answered in %v", inFlight.elapsed)
				f.waitBlocked(t, tabguard.ErrTabClosed)
				return f.eval(t, `() => 1`)
			},
			recover: newTab,
		},
		"browser process killed": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(() => {})`)
				start := time.Now()
				require.NoError(t, syscall.Kill(f.b.Launcher.PID(), syscall.SIGKILL))
				inFlight := wait(start)
				require.ErrorIs(t, inFlight.err, tabguard.ErrBrowserGone, "the eval in flight")
				t.Logf("the eval in flight answered in %v", inFlight.elapsed)
				return f.eval(t, `() => 1`)
			},
			recover: func(t *testing.T, f *fixture) *tabguard.Watcher {
				f.b = dedicated(t)
				return newTab(t, f)
			},
		},
	}
}

// leaveReloadingPage makes the page that reloads itself as soon as it is
// parsed stop doing so, as a fixed site would, and navigates home. A reload
// that page started just before home committed can still commit after it
// (Chrome 156 commits both, in the order they started): the watcher then
// shows it under way once Navigate returns, and a second Navigate is needed.
func leaveReloadingPage(t *testing.T, f *fixture) *tabguard.Watcher {
	req, err := http.NewRequestWithContext(testbrowser.Context(t, 5*time.Second), http.MethodGet, f.srv.URL+"/reload-inline/stop", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	for i := 0; ; i++ {
		navigateHome(t, f)
		url := f.w.State().URL
		if !strings.HasSuffix(url, "/reload-inline") {
			return f.w
		}
		require.Less(t, i, 2, "still at %s after navigating home", url)
		t.Logf("a reload that started before home committed is under way: navigating home again")
	}
}
