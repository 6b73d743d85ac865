package chromedpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// loadFailed navigates to url, which must fail, and evaluates once the
// watcher has seen the failure.
func loadFailed(url func(t testing.TB) string) func(t *testing.T, f *fixture) outcome {
	return func(t *testing.T, f *fixture) outcome {
		require.Error(t, f.navigate(t, f.tabWithin(t, 10*time.Second), url(t)))
		return refused(chromedpguard.ErrNoDocument)(t, f)
	}
}

func loadFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"first load never answers": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Page.navigate itself, which leaves the load pending when it
				// gives up (Watcher.Navigate would stop it).
				nctx := f.tabWithin(t, 10*time.Second)
				go func() { _ = f.navigate(t, nctx, f.srv.URL+"/stall") }()
				eventually(t, "the load to start", func() bool { return f.w.State().URL == f.srv.URL+"/stall" })
				out := f.eval(t, `() => 1`)
				assert.Contains(t, out.err.Error(), "tab still loading "+f.srv.URL+"/stall")
				return out
			},
			recover: navigateHome, // replaces the pending load
		},
		"connection refused": {fault: loadFailed(deadURL), recover: navigateHome},
		"unresolvable host": {
			fault:   loadFailed(func(testing.TB) string { return "http://nonexistent.invalid/" }),
			recover: navigateHome,
		},
		"body stalls after headers": {
			fault: func(t *testing.T, f *fixture) outcome {
				require.NoError(t, f.navigate(t, f.tabWithin(t, 10*time.Second), f.srv.URL+"/trickle")) // commits on the headers
				// Every eval answers while the body stalls; the parser may
				// take a moment to reach the title.
				eventually(t, "the title to be parsed", func() bool {
					out := f.eval(t, `() => document.title`)
					require.NoError(t, out.err)
					return string(out.res.Value) == `"partial"`
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
				nctx := f.tabWithin(t, 10*time.Second)
				go func() { _ = f.navigate(t, nctx, f.srv.URL+"/reload-inline") }()
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
		res, err := f.w.Eval(within(t, 10*time.Second), `() => document.readyState`)
		if err == nil && string(res.Value) == `"complete"` {
			break
		}
		require.True(t, time.Now().Before(deadline), "page not loaded after 30s: %v", err)
	}
	start := time.Now()
	dom, err := f.w.DOM(within(t, 20*time.Second), 0)
	out := outcome{err: err, elapsed: time.Since(start)}
	require.NoError(t, err)
	assert.True(t, dom.Truncated)
	assert.Greater(t, dom.Size, 5<<20)
	assert.True(t, utf8.ValidString(dom.HTML), "cut inside a rune")
	i := strings.LastIndex(dom.HTML, "\n<!-- truncated: showing ")
	require.Positive(t, i, "no truncation notice")
	assert.LessOrEqual(t, i, chromedpguard.DefaultMaxDOMBytes)
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
		if errors.Is(out.err, chromedpguard.ErrEvalTimeout) {
			var te *chromedpguard.TimeoutError
			require.ErrorAs(t, out.err, &te)
			assert.Equal(t, f.timeout, te.Limit, "eval %d: its own deadline ended it", i)
		}
		if out.err == nil {
			ok++
		} else {
			assert.ErrorIs(t, out.err, chromedpguard.ErrNavigated, "eval %d", i)
		}
	}
	t.Logf("%d/%d short evals answered with a result, the rest with ErrNavigated", ok, n)
}

// navigateTo calls Watcher.Navigate, the call under test, to path's URL.
func navigateTo(path func(t *testing.T, f *fixture) string) func(t *testing.T, f *fixture) outcome {
	return func(t *testing.T, f *fixture) outcome {
		start := time.Now()
		err := f.w.Navigate(within(t, 30*time.Second), path(t, f))
		return outcome{err: err, elapsed: time.Since(start)}
	}
}

// lifecycleFaults are the faults the watcher's own navigation calls meet.
func lifecycleFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"Navigate to a refused port": {
			fault:   navigateTo(func(t *testing.T, f *fixture) string { return deadURL(t) }),
			recover: navigateHome,
		},
		// nothing to recover: the load was stopped, the page answers
		"Navigate to a server that never answers": {
			fault: navigateTo(func(t *testing.T, f *fixture) string { return f.srv.URL + "/stall" }),
		},
		"Navigate meets a beforeunload dialog": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.waitLoaded(t)
				f.runJS(t, `window.onbeforeunload = e => { e.preventDefault(); e.returnValue = "" }`)
				return navigateTo(func(t *testing.T, f *fixture) string { return f.srv.URL + "/?next" })(t, f)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				require.NoError(t, f.w.HandleDialog(within(t, 10*time.Second), false, "")) // stay
				res, err := f.w.Eval(within(t, 10*time.Second), `() => location.href`)
				require.NoError(t, err)
				assert.Equal(t, `"`+f.srv.URL+`/"`, string(res.Value), "the dismissed dialog keeps the page")
				return f.w
			},
		},
		"renderer hung outside JavaScript": {
			fault: func(t *testing.T, f *fixture) outcome {
				f.hang(t)
				out := f.eval(t, `() => 1`)
				require.Error(t, out.err)
				assert.NotContains(t, out.err.Error(), "still loading")
				assert.NotContains(t, out.err.Error(), "TerminateOnTimeout")
				return out
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				// The error's advice: Recover crashes the hung renderer and
				// reloads the tab.
				r, err := f.w.Recover(within(t, 20*time.Second))
				require.NoError(t, err)
				assert.Equal(t, chromedpguard.CrashedAndReloaded, r.Action)
				return f.w
			},
		},
	}
}

// silentFaults are tabs that stop running the page's work with no crash
// and, from Chrome, no event: the timeout says what the probes found.
func silentFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"tab discarded by the browser": discardFault(),
		"tab frozen by another session": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Chrome answers "Not attached to an active page" while the
				// first document commits.
				f.waitLoaded(t)
				other := f.otherSession(t)
				octx := func() context.Context {
					ctx, cancel := context.WithTimeout(other, 5*time.Second)
					t.Cleanup(cancel)
					return ctx
				}
				_, err := chromedp.Call(octx(), page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateFrozen})
				require.NoError(t, err)
				// Chrome answers before the renderer has frozen; freezing
				// hides the page first.
				eventually(t, "the page to freeze", func() bool {
					v, err := chromedp.Run(octx(), chromedp.Evaluate[string]("document.visibilityState"))
					return err == nil && v == "hidden"
				})
				return f.eval(t, `() => new Promise(r => setTimeout(() => r(1), 300))`)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateActive})
				require.NoError(t, err)
				return f.w
			},
		},
		"background tab waits for an animation frame": {
			fault: func(t *testing.T, f *fixture) outcome {
				// Loaded first: the row is a loaded page that a tab hides.
				f.waitLoaded(t)
				// A new tab in this tab's window comes to front and hides it.
				newTab(t, f.browser, chromedp.WithNewWindow(false))
				return f.eval(t, `() => new Promise(r => requestAnimationFrame(() => r(1)))`)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), page.BringToFront, cdp.Empty{})
				require.NoError(t, err)
				return f.w
			},
		},
	}
}

// discardFault is a tab the browser discards to save memory.
func discardFault() cdpFault {
	return cdpFault{
		fault: func(t *testing.T, f *fixture) outcome {
			f.waitLoaded(t)
			// In this tab's window: Target.activateTarget revives a
			// discarded tab only when it shares its window.
			discards := newTab(t, f.browser, chromedp.WithNewWindow(false))
			arg, err := json.Marshal(f.srv.URL)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(discards, 20*time.Second)
			defer cancel()
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("chrome://discards")))
			res, err := chromedp.Run(ctx, chromedp.Evaluate[string]("("+faultrows.DiscardJS+")("+string(arg)+")", chromedp.EvalAwaitPromise))
			require.NoError(t, err)
			require.Equal(t, "discarded", res)
			f.waitBlocked(t, chromedpguard.ErrTabDiscarded)
			return f.eval(t, `() => 1`)
		},
		recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
			id := target.ID(f.w.State().ReplacedBy)
			_, err := chromedp.CallBrowser(f.browserWithin(t, 10*time.Second), target.ActivateTarget, target.ActivateTargetParams{TargetID: id})
			require.NoError(t, err)
			tab, cancel := chromedp.NewContext(f.browser, chromedp.WithTargetID(id))
			t.Cleanup(cancel)
			attachWithin(t, tab, 10*time.Second) // Watch would wait for ever on a tab still discarded
			return watch(t, tab, nil)
		},
	}
}

func goneFaults() map[string]cdpFault {
	return map[string]cdpFault{
		"tab closed": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(() => {})`)
				start := time.Now()
				_, err := chromedp.CallBrowser(f.browserWithin(t, 5*time.Second), target.CloseTarget, target.CloseTargetParams{TargetID: f.w.TargetID()})
				require.NoError(t, err)
				inFlight := wait(start)
				require.ErrorIs(t, inFlight.err, chromedpguard.ErrTabClosed, "the eval in flight")
				t.Logf("the eval in flight answered in %v", inFlight.elapsed)
				f.waitBlocked(t, chromedpguard.ErrTabClosed)
				return f.eval(t, `() => 1`)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher { return f.openTab(t) },
		},
		"browser process killed": {
			fault: func(t *testing.T, f *fixture) outcome {
				wait := f.evalAsync(t, `() => new Promise(() => {})`)
				start := time.Now()
				require.NoError(t, chromedp.FromContext(f.browser).Browser.Process().Kill())
				inFlight := wait(start)
				require.ErrorIs(t, inFlight.err, chromedpguard.ErrBrowserGone, "the eval in flight")
				t.Logf("the eval in flight answered in %v", inFlight.elapsed)
				return f.eval(t, `() => 1`)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				f.browser = dedicated(t)
				return f.openTab(t)
			},
		},
	}
}

// leaveReloadingPage makes the page that reloads itself as soon as it is
// parsed stop doing so, as a fixed site would, and navigates home. A reload
// that page started just before home committed can still commit after it
// (Chrome 156 commits both, in the order they started): the watcher then
// shows it under way once Navigate returns, and a second Navigate is needed.
func leaveReloadingPage(t *testing.T, f *fixture) *chromedpguard.Watcher {
	req, err := http.NewRequestWithContext(within(t, 5*time.Second), http.MethodGet, f.srv.URL+"/reload-inline/stop", nil)
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
