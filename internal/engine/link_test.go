package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// setupOver is setup over a link whose every command answers rtt after
// it was sent, from the start on: the start's calls show the link.
func setupOver(t *testing.T, rtt time.Duration, cfg engine.Config) *fixture {
	t.Helper()
	f := newFake(t, enginetest.EventsFirst, pageURL, nil)
	f.SetRoundTrip(rtt)
	return startOn(t, f, cfg)
}

// calls waits, within ctx, until the fake has had n commands of method.
func (fx *fixture) calls(ctx context.Context, t *testing.T, method string, n int) {
	t.Helper()
	for fx.f.Count(method) < n {
		select {
		case <-ctx.Done():
			t.Fatalf("%d %s within the test's deadline, not %d", fx.f.Count(method), method, n)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestHeartbeatOverASlowLink holds that a heartbeat waits for its answer
// as long as the link has shown an answer takes, not its interval alone: a
// browser whose every answer takes 300 ms lives on under a 100 ms
// heartbeat, and a silent link is still found, with the bound it waited.
func TestHeartbeatOverASlowLink(t *testing.T) {
	t.Parallel()
	const rtt = 300 * time.Millisecond
	fx := setupOver(t, rtt, engine.Config{Heartbeat: 100 * time.Millisecond})
	fastest, slowest := fx.b.RoundTrip()
	assert.GreaterOrEqual(t, fastest, rtt, "the start showed the link")
	assert.GreaterOrEqual(t, slowest, fastest)
	ctx := deadline(t)
	fx.calls(ctx, t, "Browser.getVersion", 5)
	require.NoError(t, fx.tab.Do(ctx, "", ok), "five heartbeats of 300 ms later, the browser lives")
	assert.False(t, fx.tab.State().BrowserGone)

	fx.f.Handle("Browser.getVersion", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} })
	s, err := fx.tab.Wait(ctx, func(s tabstate.State) bool { return s.BrowserGone })
	require.NoError(t, err)
	bound, found := strings.CutPrefix(s.GoneReason, "no answer from the browser for ")
	require.True(t, found, s.GoneReason)
	d, err := time.ParseDuration(bound)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 3*rtt, "the bound is three of the link's round trips")
}

// TestShortDeadlineNamesNoUnprovenCause holds that a call whose deadline
// leaves its probes less time than it takes to prove what did not answer
// names no cause it has not seen: a renderer slow to take an interrupt (a
// loaded machine) is not hung, and a link slow to answer anything is not
// silent. Recover then asks the page, finds the script, and stops it,
// keeping the page.
func TestShortDeadlineNamesNoUnprovenCause(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T) *fixture
		doing string
	}{
		{"loaded renderer", func(t *testing.T) *fixture {
			// A patience of 3 s: the machine the test runs on may be
			// loaded too, and a second is the renderer's in this row.
			fx := setup(t, enginetest.EventsFirst, engine.Config{Patience: 3 * time.Second})
			fx.f.Handle("Performance.getMetrics", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Delay: 600 * time.Millisecond} // past the deadline
			})
			return fx
		}, "though the browser process did: too little time to tell a busy script from a hung renderer, which takes 3s"},
		{"300 ms one way", func(t *testing.T) *fixture {
			// Nothing the probes send answers before the deadline.
			return setupOver(t, 600*time.Millisecond, engine.Config{})
		}, "not even the browser process (Browser.getVersion): too little time to tell a silent connection from a slow link or a loaded machine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fx := tt.setup(t)
			busyScript(fx)
			ctx, cancel := context.WithTimeout(deadline(t), 400*time.Millisecond)
			defer cancel()
			err := fx.tab.Do(ctx, "", hang)
			var te *tabstate.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tabstate.TimeoutUnknown, te.Cause, te.Error())
			assert.Contains(t, te.Doing, tt.doing)
			assert.Contains(t, te.Error(), "Watcher.Recover asks the page why")

			r, err := fx.tab.Recover(deadline(t))
			require.NoError(t, err)
			assert.Equal(t, tabstate.TerminatedScript, r.Action, r.String())
			assert.Zero(t, fx.f.Count("Page.crash"), "the page is kept")
		})
	}
}

// TestRecoverActsOnNoGuess holds that Recover whose deadline ends before
// it can tell a hung renderer from a slow one does nothing, and says what
// answered.
func TestRecoverActsOnNoGuess(t *testing.T) {
	t.Parallel()
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	stalled(fx, false)
	ctx, cancel := context.WithTimeout(deadline(t), 300*time.Millisecond)
	defer cancel()
	r, err := fx.tab.Recover(ctx)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabstate.TimeoutUnknown, te.Cause)
	assert.Equal(t, "recover", te.Op)
	assert.Contains(t, te.Doing, "too little time to tell a busy script from a hung renderer")
	assert.Equal(t, err, r.Problem)
	assert.Empty(t, r.Action)
	assert.Zero(t, fx.f.Count("Page.crash"), "nothing is crashed on a guess")
	assert.Zero(t, fx.f.Count("Runtime.terminateExecution"))
}

// TestBusyScriptOverAFarLink holds that the probes of a call on a busy
// page over a link slower than a second each way get the time the link
// needs: the interrupt's answer, a round trip later, names the script.
func TestBusyScriptOverAFarLink(t *testing.T) {
	t.Parallel()
	const rtt = 1100 * time.Millisecond
	fx := setupOver(t, rtt, engine.Config{EvalTimeout: 4 * time.Second})
	busyScript(fx)
	err := fx.tab.Do(deadline(t), "", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabstate.TimeoutBusyScript, te.Cause, te.Error())
}
