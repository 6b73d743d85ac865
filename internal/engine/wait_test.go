package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestWaitTimesOut holds that a wait is bounded as every call is: at the
// eval timeout, or the caller's deadline when it comes first, it answers a
// timeout that names what the tab was doing and the milestones its
// document reached; a canceled wait answers the cancel.
func TestWaitTimesOut(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	busyScript(fx)
	fx.f.Push(enginetest.Page(sess, tabstate.LifecycleEvent{FrameID: target, LoaderID: "L", Name: "DOMContentLoaded"}))
	idle := func(s tabstate.State) bool { return s.Reached(tabstate.NetworkIdle) }

	s, err := fx.tab.Wait(deadline(t), idle)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, engine.OpWait, te.Op)
	assert.Equal(t, 300*time.Millisecond, te.Limit)
	assert.Equal(t, tabstate.TimeoutBusyScript, te.Cause, err)
	assert.Equal(t, s.Milestones, te.Milestones)
	assert.Contains(t, te.Doing, "not ")

	ctx, cancel := context.WithTimeout(deadline(t), 200*time.Millisecond)
	defer cancel()
	_, err = fx.tab.Wait(ctx, idle)
	require.ErrorAs(t, err, &te, "the caller's deadline comes first")
	assert.LessOrEqual(t, te.Limit, 200*time.Millisecond, "the time the wait had")

	ctx, cancel = context.WithCancel(deadline(t))
	cancel()
	_, err = fx.tab.Wait(ctx, idle)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.As(err, &te), "a canceled wait did not run out of time: %v", err)
}

// TestCallersDeadlineGoverns holds the rule of every call's bound: a
// context with a deadline is bounded by it, later than the eval timeout
// too; the eval timeout bounds a call whose context has none.
func TestCallersDeadlineGoverns(t *testing.T) {
	const timeout = 100 * time.Millisecond
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: timeout})
	long, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	release := make(chan struct{})
	time.AfterFunc(3*timeout, func() { close(release) })
	err := fx.tab.Do(long, "", func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	require.NoError(t, err, "a call with a later deadline than the eval timeout")

	var te *tabstate.TimeoutError
	err = fx.tab.Do(deadline(t), "", hang)
	require.ErrorAs(t, err, &te, "a call whose context has no deadline")
	assert.Equal(t, timeout, te.Limit)

	fx.f.Push(enginetest.Page(sess, tabstate.LifecycleEvent{FrameID: target, LoaderID: "L", Name: "networkIdle"}))
	held := func(s tabstate.State) bool { return s.Reached(tabstate.NetworkIdle) }
	time.AfterFunc(3*timeout, func() {
		fx.f.Push(enginetest.Page(sess, tabstate.LifecycleEvent{FrameID: target, LoaderID: "L", Name: "DOMContentLoaded"}))
	})
	_, err = fx.tab.Wait(long, func(s tabstate.State) bool { return held(s) && s.Reached(tabstate.DOMContentLoaded) })
	require.NoError(t, err, "a wait with a later deadline than the eval timeout")
}
