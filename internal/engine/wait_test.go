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
