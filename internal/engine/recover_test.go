package engine_test

import (
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

// stalled makes the fake's page answer no evaluate but the start's; with
// interrupts, Performance.getMetrics answers (a busy script), without, it
// hangs too (a hung renderer). Page.crash is never answered, but the
// crash events come; Page.reload commits the page again.
func stalled(fx *fixture, interrupts bool) {
	fx.f.Handle("Runtime.evaluate", evaluate(func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} }))
	fx.f.Handle("Performance.getMetrics", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: !interrupts} })
	fx.f.Handle("Page.handleJavaScriptDialog", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "No dialog is showing"}}
	})
	fx.f.Handle("Page.crash", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Hang: true, Events: crash("crashed")}
	})
	fx.f.Handle("Page.reload", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Events: commit("L2", pageURL)}
	})
}

// Recover tells a busy script (the interrupt answers) from a hung renderer
// (nothing answers but the browser), stops the one, crashes and reloads
// the other, and the next call sees the tab back.
func TestRecoverStalled(t *testing.T) {
	for _, tt := range []struct {
		name       string
		interrupts bool
		cause      tabstate.TimeoutCause
		action     tabstate.RecoveryAction
		sent       []string
	}{
		{"busy script", true, tabstate.TimeoutBusyScript, tabstate.TerminatedScript, []string{"Runtime.terminateExecution"}},
		{"hung renderer", false, tabstate.TimeoutHung, tabstate.CrashedAndReloaded, []string{"Page.handleJavaScriptDialog", "Page.crash", "Page.reload"}},
	} {
		for _, order := range orders {
			t.Run(tt.name+"/"+order.String(), func(t *testing.T) {
				fx := setup(t, order, engine.Config{EvalTimeout: 300 * time.Millisecond})
				stalled(fx, tt.interrupts)
				r, err := fx.tab.Recover(deadline(t))
				require.NoError(t, err)
				assert.Equal(t, tt.action, r.Action)
				var te *tabstate.TimeoutError
				require.ErrorAs(t, r.Problem, &te)
				assert.Equal(t, tt.cause, te.Cause)
				for _, m := range tt.sent {
					assert.Equal(t, 1, fx.f.Count(m), m)
				}
				if tt.cause == tabstate.TimeoutBusyScript {
					assert.Zero(t, fx.f.Count("Page.crash"), "a busy script keeps its page")
				}
				assert.NoError(t, fx.tab.Blocked(deadline(t)), "the next call sees the tab back")
			})
		}
	}
}

// After a call that timed out found the renderer hung, Recover acts on
// that without asking the page again; a call that answers since makes it
// ask.
func TestRecoverActsOnTheTimeout(t *testing.T) {
	// The probes prove the hang in a patience of 100 ms, which the
	// 300 ms call leaves them.
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond, Patience: 100 * time.Millisecond})
	stalled(fx, false)
	err := fx.tab.Do(deadline(t), engine.OpScreenshot, hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	require.Equal(t, tabstate.TimeoutHung, te.Cause)
	asked := fx.f.Count("Performance.getMetrics")

	r, err := fx.tab.Recover(deadline(t))
	require.NoError(t, err)
	assert.Equal(t, tabstate.CrashedAndReloaded, r.Action)
	assert.Equal(t, asked, fx.f.Count("Performance.getMetrics"), "the page is not asked again")

	fx.f.Handle("Runtime.evaluate", evaluate(nil))
	r, err = fx.tab.Recover(deadline(t))
	require.NoError(t, err)
	assert.Equal(t, tabstate.Recovery{Action: tabstate.RecoveredNothing}, r, "the tab answers: nothing to do")
	assert.Equal(t, 1, fx.f.Count("Page.crash"))
}

// A dialog is dismissed, a crash reloaded (with the URL it had), a page
// with no document reloaded; a closed tab cannot be brought back, and says
// so.
func TestRecoverRefusals(t *testing.T) {
	t.Run("dialog", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert", Message: "hi"}))
		fx.f.Handle("Page.handleJavaScriptDialog", func(_ string, p json.RawMessage) enginetest.Reply {
			assert.JSONEq(t, `{"accept":false}`, string(p))
			return enginetest.Reply{Events: []enginetest.Event{enginetest.Page(sess, tabstate.DialogClosed{})}}
		})
		r, err := fx.tab.Recover(deadline(t))
		require.NoError(t, err)
		assert.Equal(t, tabstate.DismissedDialog, r.Action)
		assert.ErrorIs(t, r.Problem, tabstate.ErrDialogOpen)
		assert.NoError(t, fx.tab.Blocked(deadline(t)))
	})
	t.Run("crash", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		fx.f.Push(crash("oom")...)
		fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
			return enginetest.Reply{Result: map[string]any{"frameId": target, "loaderId": "L2"}, Events: commit("L2", pageURL)}
		})
		r, err := fx.tab.Recover(deadline(t))
		require.NoError(t, err)
		assert.Equal(t, tabstate.Reloaded, r.Action)
		assert.True(t, strings.HasPrefix(r.String(), "tab renderer crashed (reason: oom"), r.String())
		assert.NoError(t, fx.tab.Blocked(deadline(t)))
	})
	t.Run("closed", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		fx.f.Push(enginetest.Page(sess, tabstate.Detached{TargetID: target}))
		r, err := fx.tab.Recover(deadline(t))
		assert.ErrorIs(t, err, tabstate.ErrTabClosed)
		assert.ErrorIs(t, r.Problem, tabstate.ErrTabClosed)
		assert.Empty(t, r.Action)
		fx.tab.Close()
		_, err = fx.tab.Recover(deadline(t))
		assert.ErrorIs(t, err, tabstate.ErrWatcherClosed)
		_, err = fx.tab.Recover(nil) //lint:ignore SA1012 a nil context is the bad input under test
		assert.ErrorIs(t, err, tabstate.ErrInvalidArgument)
	})
}
