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

// busyScript makes the fake's page look held by a script: evaluates hang,
// the interrupt and the browser answer.
func busyScript(fx *fixture) {
	fx.f.Handle("Runtime.evaluate", evaluate(func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} }))
}

// TestTimeoutSaysWhy holds that a call that runs out of time names itself,
// its limit and what the probes found the tab doing.
func TestTimeoutSaysWhy(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	busyScript(fx)
	err := fx.tab.Do(deadline(t), "DOM read", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabstate.TimeoutBusyScript, te.Cause)
	assert.Equal(t, 300*time.Millisecond, te.Limit)
	assert.True(t, strings.HasPrefix(te.Error(), "DOM read timed out after 300ms"), te.Error())
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, tabstate.ErrEvalTimeout)
}

// TestTimeoutOfACallThatIsNoEval holds that a call other than an eval,
// on a page that answers, never finished: it had no promise to settle.
func TestTimeoutOfACallThatIsNoEval(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	for _, tt := range []struct{ op, doing string }{
		{"guarded chromedp action", "answers, but the guarded chromedp action never finished"},
		{"", "answers, but the eval's promise never settled"},
	} {
		err := fx.tab.Do(deadline(t), tt.op, hang)
		var te *tabstate.TimeoutError
		require.ErrorAs(t, err, &te, tt.op)
		assert.Equal(t, tabstate.TimeoutUnsettled, te.Cause, tt.op)
		assert.True(t, strings.HasSuffix(te.Doing, tt.doing), "%q: %s", tt.op, te.Doing)
	}
}

// TestCallerDeadline holds that a caller's own deadline, sooner than the
// eval timeout, still answers with the guard's timeout: the time the call
// had, and what the tab was doing.
func TestCallerDeadline(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 5 * time.Second})
	busyScript(fx)
	ctx, cancel := context.WithTimeout(deadline(t), 400*time.Millisecond)
	defer cancel()
	err := fx.tab.Do(ctx, "", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabstate.TimeoutBusyScript, te.Cause)
	assert.LessOrEqual(t, te.Limit, 400*time.Millisecond, "the limit is the time the call had")
	assert.Positive(t, te.Limit)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestRefusalBeatsCallerDeadline holds that a reason found before the
// caller's deadline is the answer, not the deadline.
func TestRefusalBeatsCallerDeadline(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(deadline(t), 400*time.Millisecond)
	defer cancel()
	time.AfterFunc(20*time.Millisecond, func() { fx.f.Push(crash("crashed")...) })
	err := fx.tab.Do(ctx, "", hang)
	require.ErrorIs(t, err, tabstate.ErrTabCrashed)
	<-ctx.Done()
	require.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrTabCrashed)
}

// TestCallerCancel holds that a caller that cancels gets its own error.
func TestCallerCancel(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	ctx, cancel := context.WithCancel(deadline(t))
	time.AfterFunc(20*time.Millisecond, cancel)
	require.ErrorIs(t, fx.tab.Do(ctx, "", hang), context.Canceled)
}
