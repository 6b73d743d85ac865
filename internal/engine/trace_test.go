package engine_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// recorder is a Trace that keeps what it is told.
type recorder struct {
	mu      sync.Mutex
	calls   []traced
	changes []tabtrace.Change
	terms   []tabtrace.Termination
	misses  []tabtrace.HeartbeatMiss
}

// traced is one call as the Trace saw it: the outcome, and whether the
// context CallStart returned reached CallDone.
type traced struct {
	Call    tabtrace.Call
	Outcome tabtrace.Outcome
	Reason  error
	Refused tabtrace.Refused
	Cause   tabstate.TimeoutCause
	Carried bool
}

type spanKey struct{}

func (r *recorder) trace() *tabtrace.Trace {
	return &tabtrace.Trace{
		CallStart: func(ctx context.Context, c tabtrace.Call) context.Context {
			return context.WithValue(ctx, spanKey{}, c.Op)
		},
		CallDone: func(ctx context.Context, c tabtrace.Call, d tabtrace.Done) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if d.Duration <= 0 || (d.Outcome == tabtrace.OutcomeOK) != (d.Err == nil) {
				panic("a Done without its duration or its error")
			}
			r.calls = append(r.calls, traced{c, d.Outcome, d.Reason, d.Refused, d.Cause, ctx.Value(spanKey{}) == c.Op})
		},
		TabChanged: func(c tabtrace.Change) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.changes = append(r.changes, c)
		},
		ScriptTerminated: func(s tabtrace.Termination) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.terms = append(r.terms, s)
		},
		HeartbeatMissed: func(h tabtrace.HeartbeatMiss) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.misses = append(r.misses, h)
		},
	}
}

// last is the last call the Trace saw.
func (r *recorder) last(t *testing.T) traced {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.calls, "no call traced")
	return r.calls[len(r.calls)-1]
}

// kinds are the kinds of the changes the Trace saw.
func (r *recorder) kinds() []tabtrace.ChangeKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []tabtrace.ChangeKind
	for _, c := range r.changes {
		ks = append(ks, c.Kind)
	}
	return ks
}

// TestTraceCalls holds what the Trace is told of each way a call ends, in
// both orders of replies and events.
func TestTraceCalls(t *testing.T) {
	ev := func(fx *fixture) error { return fx.tab.Do(deadline(t), engine.OpEval, ok) }
	call := func(op tabtrace.Op) tabtrace.Call {
		return tabtrace.Call{Op: op, TargetID: target, URL: pageURL}
	}
	rows := []struct {
		name string
		run  func(fx *fixture) error
		want traced
	}{
		{"ok", ev, traced{Call: call(tabtrace.OpEval), Carried: true}},
		{"the span reaches the call", func(fx *fixture) error {
			return fx.tab.DoAction(deadline(t), engine.OpDo, func(ctx context.Context) error {
				if ctx.Value(spanKey{}) != tabtrace.OpDo {
					return assert.AnError
				}
				return nil
			})
		}, traced{Call: call(tabtrace.OpDo), Carried: true}},
		{"crash in flight", func(fx *fixture) error {
			return fx.tab.Do(deadline(t), engine.OpEval, func(ctx context.Context) error {
				go fx.f.Push(crash("oom")...) // once the call is in flight
				return hang(ctx)
			})
		}, traced{Call: call(tabtrace.OpEval), Outcome: tabtrace.OutcomeRefused, Reason: tabstate.ErrTabCrashed,
			Refused: tabtrace.RefusedInFlight, Carried: true}},
		{"crash, after the barrier", func(fx *fixture) error {
			fx.f.Push(crash("oom")...)
			_, err := fx.tab.DOM(deadline(t), 0)
			return err
		}, traced{Call: call(tabtrace.OpDOM), Outcome: tabtrace.OutcomeRefused, Reason: tabstate.ErrTabCrashed,
			Refused: tabtrace.RefusedAfterBarrier, Carried: true}},
		{"closed, from the state", func(fx *fixture) error {
			fx.f.Push(func(b *engine.Browser) { b.TargetDestroyed(target) })
			require.Eventually(t, func() bool { return fx.tab.State().Closed }, 5*time.Second, time.Millisecond)
			return fx.tab.Navigate(deadline(t), pageURL)
		}, traced{Call: call(tabtrace.OpNavigate), Outcome: tabtrace.OutcomeRefused, Reason: tabstate.ErrTabClosed,
			Refused: tabtrace.RefusedFromState, Carried: true}},
		{"busy script timeout", func(fx *fixture) error {
			busyScript(fx)
			return fx.tab.Do(deadline(t), engine.OpEval, hang)
		}, traced{Call: call(tabtrace.OpEval), Outcome: tabtrace.OutcomeTimedOut, Reason: tabstate.ErrEvalTimeout,
			Cause: tabstate.TimeoutBusyScript, Carried: true}},
		{"cancelled", func(fx *fixture) error {
			ctx, cancel := context.WithCancel(deadline(t))
			time.AfterFunc(20*time.Millisecond, cancel)
			return fx.tab.Do(ctx, engine.OpScreenshot, hang)
		}, traced{Call: call(tabtrace.OpScreenshot), Outcome: tabtrace.OutcomeCanceled, Reason: context.Canceled, Carried: true}},
		{"bad input", func(fx *fixture) error {
			_, err := fx.tab.ReadDOM(deadline(t), engine.DOMOptions{MaxBytes: -1})
			return err
		}, traced{Call: call(tabtrace.OpReadDOM), Outcome: tabtrace.OutcomeFailed, Reason: tabstate.ErrInvalidArgument, Carried: true}},
		{"no dialog", func(fx *fixture) error {
			fx.f.Handle("Page.handleJavaScriptDialog", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "No dialog is showing"}}
			})
			return fx.tab.HandleDialog(deadline(t), true, "")
		}, traced{Call: call(tabtrace.OpHandleDialog), Outcome: tabtrace.OutcomeFailed, Reason: tabstate.ErrNoDialog, Carried: true}},
		{"browser side", func(fx *fixture) error {
			return fx.tab.DoBrowserSide(deadline(t), engine.OpCookies, ok)
		}, traced{Call: call(tabtrace.OpCookies), Carried: true}},
	}
	for _, order := range orders {
		for _, row := range rows {
			t.Run(order.String()+"/"+row.name, func(t *testing.T) {
				var r recorder
				fx := setup(t, order, engine.Config{EvalTimeout: 300 * time.Millisecond, Trace: r.trace()})
				err := row.run(fx)
				if row.want.Outcome == tabtrace.OutcomeOK {
					require.NoError(t, err)
				} else {
					require.Error(t, err)
				}
				if diff := cmp.Diff(row.want, r.last(t), cmpopts.EquateErrors()); diff != "" {
					t.Errorf("traced (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestTraceChanges holds what the Trace is told of a tab's life and the
// browser's.
func TestTraceChanges(t *testing.T) {
	var r recorder
	fx := setup(t, enginetest.EventsFirst, engine.Config{Trace: r.trace()})
	fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert", Message: "hi"}))
	fx.f.Push(crash("oom")...)
	fx.f.Push(func(b *engine.Browser) {
		b.TargetCreated(engine.TargetInfo{TargetID: "T2", Type: "page", URL: pageURL + "2", Title: "two", Attached: true})
		b.TargetCreated(engine.TargetInfo{TargetID: "W1", Type: "service_worker", URL: pageURL + "sw.js"})
		// A discard: Chrome makes the replacement, then ends the tab.
		b.TargetCreated(engine.TargetInfo{TargetID: "T3", Type: "page", URL: pageURL + "2", Title: "two"})
		b.TargetDestroyed("T2")
		b.TargetDestroyed("T3")
		b.Disconnected("connection reset")
		b.Disconnected("") // a later, vaguer reason is not news
	})
	fx.tab.Close()
	want := []tabtrace.Change{
		{Kind: tabtrace.TabWatched, TargetID: target, URL: pageURL},
		{Kind: tabtrace.TabDialogOpened, TargetID: target, URL: pageURL, Detail: "alert"},
		{Kind: tabtrace.TabCrashed, TargetID: target, URL: pageURL, Detail: "oom"},
		{Kind: tabtrace.TabOpened, TargetID: "T2", URL: pageURL + "2"},
		{Kind: tabtrace.TabOpened, TargetID: "T3", URL: pageURL + "2"},
		{Kind: tabtrace.TabDiscarded, TargetID: "T2", URL: pageURL + "2", Detail: "T3"},
		{Kind: tabtrace.TabClosed, TargetID: "T3", URL: pageURL + "2"},
		{Kind: tabtrace.BrowserGone, Detail: "connection reset"},
		{Kind: tabtrace.TabUnwatched, TargetID: target, URL: pageURL},
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if diff := cmp.Diff(want, r.changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

// TestTraceTerminationAndHeartbeat holds that the Trace hears of a script
// the guard stopped, and of a heartbeat that went unanswered.
func TestTraceTerminationAndHeartbeat(t *testing.T) {
	var r recorder
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond, TerminateOnTimeout: true, Trace: r.trace()})
	busyScript(fx)
	answer(fx.f, "Runtime.terminateExecution", struct{}{})
	require.ErrorIs(t, fx.tab.Do(deadline(t), engine.OpEval, hang), tabstate.ErrEvalTimeout)
	r.mu.Lock()
	assert.Equal(t, []tabtrace.Termination{{TargetID: target, URL: pageURL}}, r.terms)
	r.mu.Unlock()

	var h recorder
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{}})
	f.Handle("Browser.getVersion", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} })
	b := engine.NewBrowser(f.Driver(), engine.Config{Heartbeat: 20 * time.Millisecond, Trace: h.trace()})
	f.Attach(b)
	t.Cleanup(b.Close)
	require.NoError(t, b.Start(deadline(t)))
	require.Eventually(t, func() bool { return len(h.kinds()) == 1 }, 5*time.Second, 5*time.Millisecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Equal(t, []tabtrace.HeartbeatMiss{{Bound: 20 * time.Millisecond}}, h.misses)
	assert.Equal(t, tabtrace.BrowserGone, h.changes[0].Kind)
}

// TestTraceSendsNothing holds that tracing adds no CDP message to a call.
func TestTraceSendsNothing(t *testing.T) {
	count := func(trace *tabtrace.Trace) int {
		fx := setup(t, enginetest.EventsFirst, engine.Config{Trace: trace})
		before := len(fx.f.Calls())
		for range 10 {
			_, err := fx.tab.DOM(deadline(t), 0)
			require.Error(t, err) // the fake's page answers true, no DOM
			require.NoError(t, fx.tab.Do(deadline(t), engine.OpEval, ok))
		}
		return len(fx.f.Calls()) - before
	}
	var r recorder
	assert.Equal(t, count(nil), count(r.trace()))
	assert.Len(t, r.calls, 20)
}
