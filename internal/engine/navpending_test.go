package engine_test

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// neverURL is where the pending navigation goes: a server that never
// answers.
const neverURL = "http://127.0.0.1:1/never"

// navPending starts a main-frame navigation to neverURL that never
// commits, on the fixture's loaded page. As Chrome does (measured on
// Chromium 156), the page's evaluates are held while it is pending; the
// interrupt and the browser answer. Page.stopLoading abandons it
// (Page.frameStoppedLoading), and the evaluates answer again. It returns
// whether the load was stopped.
func navPending(fx *fixture) *atomic.Bool {
	stopped := &atomic.Bool{}
	fx.f.Handle("Runtime.evaluate", evaluate(func(string, json.RawMessage) enginetest.Reply {
		if stopped.Load() {
			return enginetest.Reply{Result: map[string]any{"result": map[string]any{"type": "boolean", "value": true}}}
		}
		return enginetest.Reply{Hang: true}
	}))
	fx.f.Handle("Page.stopLoading", func(string, json.RawMessage) enginetest.Reply {
		stopped.Store(true)
		return enginetest.Reply{Events: []enginetest.Event{enginetest.Page(sess, tabstate.StoppedLoading{FrameID: target})}}
	})
	fx.f.Push(enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "L2", URL: neverURL, Type: "differentDocument"}))
	return stopped
}

// destructive are the calls Recover must not make on a page that a
// navigation holds: the page itself is healthy.
var destructive = []string{"Runtime.terminateExecution", "Page.crash", "Page.reload", "Page.navigate", "Page.handleJavaScriptDialog"}

// A call on a page that a pending navigation holds times out naming the
// navigation and its URL; Recover stops the load (Page.stopLoading) and
// nothing else, acting on what the call found, and the next call answers
// on the page the navigation would have replaced.
func TestNavigationPendingTimeout(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{EvalTimeout: 300 * time.Millisecond})
			stopped := navPending(fx)

			err := fx.tab.Do(deadline(t), "", hang)
			var te *tabstate.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tabstate.TimeoutNavigating, te.Cause, err.Error())
			assert.Equal(t, 300*time.Millisecond, te.Limit)
			assert.Contains(t, te.Doing, "navigation to "+neverURL+" has not committed")
			assert.Contains(t, te.Advice, "Watcher.Recover")
			assert.False(t, stopped.Load(), "a timeout stops nothing by itself")
			asked := fx.f.Count("Performance.getMetrics")

			r, err := fx.tab.Recover(deadline(t))
			require.NoError(t, err)
			assert.Equal(t, tabstate.StoppedNavigation, r.Action)
			assert.Same(t, te, r.Problem, "Recover acts on what the call found")
			assert.Equal(t, asked, fx.f.Count("Performance.getMetrics"), "the page is not asked again")
			assert.Equal(t, 1, fx.f.Count("Page.stopLoading"))
			for _, m := range destructive {
				assert.Zero(t, fx.f.Count(m), m)
			}
			assert.True(t, strings.HasSuffix(r.String(), ": stopped the pending navigation"), r.String())

			assert.Equal(t, pageURL, fx.tab.State().URL, "the page is back")
			assert.NoError(t, fx.tab.Do(deadline(t), "", ok), "the next call answers")
			r, err = fx.tab.Recover(deadline(t))
			require.NoError(t, err)
			assert.Equal(t, tabstate.RecoveredNothing, r.Action, "nothing is left to recover")
		})
	}
}

// Recover with no timeout before it asks the page, tells a pending
// navigation from a busy script (the interrupt answers either way) by the
// tab's events and the browser's answer, and stops the load.
func TestRecoverAsksAboutAPendingNavigation(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{EvalTimeout: 2 * time.Second})
			navPending(fx)
			r, err := fx.tab.Recover(deadline(t))
			require.NoError(t, err)
			assert.Equal(t, tabstate.StoppedNavigation, r.Action)
			var te *tabstate.TimeoutError
			require.ErrorAs(t, r.Problem, &te)
			assert.Equal(t, tabstate.TimeoutNavigating, te.Cause)
			assert.Equal(t, 1, fx.f.Count("Page.stopLoading"))
			for _, m := range destructive {
				assert.Zero(t, fx.f.Count(m), m)
			}
			assert.NoError(t, fx.tab.Do(deadline(t), "", ok), "the next call answers")
		})
	}
}

// A navigation under way on a page that answers holds nothing: Recover
// leaves it alone, and a call that times out on it is no navigation's.
func TestNavigationPendingOnAPageThatAnswers(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	fx.f.Push(enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "L2", URL: neverURL, Type: "differentDocument"}))
	r, err := fx.tab.Recover(deadline(t))
	require.NoError(t, err)
	assert.Equal(t, tabstate.Recovery{Action: tabstate.RecoveredNothing}, r)
	assert.Zero(t, fx.f.Count("Page.stopLoading"))

	err = fx.tab.Do(deadline(t), "", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabstate.TimeoutUnsettled, te.Cause, err.Error())
}

// A navigation that does not stop when told to leaves Recover a timeout
// that says so, within the eval timeout.
func TestRecoverNavigationThatDoesNotStop(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	navPending(fx)
	fx.f.Handle("Page.stopLoading", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{} })
	r, err := fx.tab.Recover(deadline(t))
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabstate.StoppedNavigation, r.Action, "what was tried")
	assert.Equal(t, tabstate.TimeoutNavigating, te.Cause)
	assert.Contains(t, te.Doing, "navigation to "+neverURL+" did not stop when told to (Page.stopLoading)")
	assert.Equal(t, 1, fx.f.Count("Page.stopLoading"))
	for _, m := range destructive {
		assert.Zero(t, fx.f.Count(m), m)
	}
}
