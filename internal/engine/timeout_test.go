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

// TestStartAfterAnUnseenCommit holds that a Tab started just after a
// commit it did not see, while Chrome's history still trails it, learns
// from the page itself that the document is committed: a call that times
// out there is no "still loading".
func TestStartAfterAnUnseenCommit(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			f := enginetest.New(order)
			t.Cleanup(f.Close)
			answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{
				map[string]any{"targetId": target, "type": "page", "url": pageURL, "title": "page"}}})
			answer(f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": target, "type": "page", "url": pageURL}})
			answer(f, "Page.getNavigationHistory", map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"url": "about:blank"}}})
			f.Handle("Runtime.evaluate", evaluate(nil))
			b := engine.NewBrowser(f.Driver(), engine.Config{})
			f.Attach(b)
			t.Cleanup(b.Close)
			require.NoError(t, b.Start(deadline(t)))
			tab, err := b.Watch(engine.TabHandle{Session: f.Session(sess), TargetID: target, SessionID: sess, Life: context.Background()})
			require.NoError(t, err)
			t.Cleanup(tab.Close)
			s, err := tab.Wait(deadline(t), func(s tabstate.State) bool { return s.Loaded })
			require.NoError(t, err)
			assert.True(t, s.Committed)
			assert.Equal(t, pageURL, s.URL)
		})
	}
}
