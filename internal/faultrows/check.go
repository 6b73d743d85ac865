package faultrows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/tabstate"
)

// Outcome is what the call under test answered, as a backend's fault func
// saw it.
type Outcome struct {
	// Err is the call's error.
	Err error
	// Result is the result's value as a string, for a row that wants one.
	Result string
	// Elapsed is how long the call took from a moment the fault chose:
	// the start of the call, or the injection of the fault. It is logged,
	// never asserted.
	Elapsed time.Duration
}

// Check holds what backend b answered for row r to the row: the sentinel
// (with errors.Is) and the messages; a timeout must be a
// [tabstate.TimeoutError] whose Limit is the row's own timeout, so no
// other deadline ended it, and whose Cause is the row's; any other error
// must be a [tabstate.BlockedError], which the state machine gives
// without waiting. It asserts no time: the time is logged.
func Check(t *testing.T, r Row, b Backend, got Outcome) {
	t.Helper()
	if r.Want == nil {
		require.NoError(t, got.Err)
		for _, m := range r.Messages(b) {
			assert.Contains(t, got.Result, m)
		}
	} else {
		require.Error(t, got.Err)
		require.ErrorIs(t, got.Err, r.Want, "error: %v", got.Err)
		for _, m := range r.Messages(b) {
			assert.Contains(t, got.Err.Error(), m)
		}
		var te *tabstate.TimeoutError
		if errors.As(got.Err, &te) {
			assert.Equal(t, r.Timeout(), te.Limit, "the eval's own timeout")
			assert.Equal(t, r.Cause, te.Cause, "what the watcher found: %v", got.Err)
		} else {
			var be *tabstate.BlockedError
			assert.ErrorAs(t, got.Err, &be, "a refusal is a *BlockedError")
		}
	}
	if r.Fast {
		assert.NotErrorIs(t, got.Err, tabstate.ErrEvalTimeout, "answered by the tab's state, not by the deadline")
	}
	t.Logf("%s on %v: %v in %v", r.Name, b, got.Err, got.Elapsed.Round(time.Millisecond))
}

// HeartbeatMiss holds that reason, a lost browser's, is a missed
// heartbeat's, whose bound is its interval or more (three of the link's
// slowest recent round trips, which a loaded machine lengthens), and
// returns it.
func HeartbeatMiss(t *testing.T, reason string, interval time.Duration) string {
	t.Helper()
	bound, ok := strings.CutPrefix(reason, "no answer from the browser for ")
	require.True(t, ok, reason)
	d, err := time.ParseDuration(bound)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, interval, reason)
	return reason
}
