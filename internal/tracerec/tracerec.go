// Package tracerec is a tabtrace.Trace that keeps what it is told, and the
// check every backend's test of its Options.Trace runs with it.
package tracerec

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// Record is one guarded call as the Trace saw it.
type Record struct {
	Call tabtrace.Call
	Done tabtrace.Done
}

// Recorder keeps the calls and changes its Trace is told of. Its methods
// are safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	calls   []Record
	changes []tabtrace.Change
}

// Trace returns the Trace that records into r.
func (r *Recorder) Trace() *tabtrace.Trace {
	return &tabtrace.Trace{
		CallDone: func(_ context.Context, c tabtrace.Call, d tabtrace.Done) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.calls = append(r.calls, Record{c, d})
		},
		TabChanged: func(c tabtrace.Change) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.changes = append(r.changes, c)
		},
	}
}

// Last is the last call recorded; false when there is none.
func (r *Recorder) Last() (Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		return Record{}, false
	}
	return r.calls[len(r.calls)-1], true
}

// Changed reports whether a change of kind was recorded for target id.
func (r *Recorder) Changed(kind tabtrace.ChangeKind, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.changes {
		if c.Kind == kind && c.TargetID == id {
			return true
		}
	}
	return false
}

// Backend is one backend's watched tab on a loaded page, as CheckBackend
// drives it.
type Backend struct {
	// TargetID and URL are the tab's.
	TargetID, URL string
	// Eval evaluates `() => 1` on the watcher.
	Eval func() error
	// Crash kills the tab's renderer and returns once Chrome reported it
	// to the test.
	Crash func()
	// Reload is the watcher's Reload.
	Reload func() error
}

// CheckBackend holds that r, the Trace of b's watcher, hears of the
// backend's calls and of its tab's changes: a healthy eval, the refusal
// that follows a crash, at once, and the recovery.
func CheckBackend(t *testing.T, r *Recorder, b Backend) {
	t.Helper()
	require.True(t, r.Changed(tabtrace.TabWatched, b.TargetID), "the watch traced")

	require.NoError(t, b.Eval())
	last, _ := r.Last()
	assert.Equal(t, tabtrace.Call{Op: tabtrace.OpEval, TargetID: b.TargetID, URL: b.URL}, last.Call)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)

	b.Crash()
	// At once, as a program calls: the watcher hears of the crash on its
	// own connection, which may trail the test's, so the call is refused
	// up front or cut short in flight, and traced as what happened.
	require.ErrorIs(t, b.Eval(), tabstate.ErrTabCrashed)
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OutcomeRefused, last.Done.Outcome)
	assert.Equal(t, tabstate.ErrTabCrashed, last.Done.Reason)
	assert.Contains(t, []tabtrace.Refused{tabtrace.RefusedAfterBarrier, tabtrace.RefusedInFlight}, last.Done.Refused)
	// Once the watcher traced the crash, the next call is refused up front.
	require.Eventually(t, func() bool { return r.Changed(tabtrace.TabCrashed, b.TargetID) }, 10*time.Second, 5*time.Millisecond,
		"the crash traced")
	require.ErrorIs(t, b.Eval(), tabstate.ErrTabCrashed)
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OutcomeRefused, last.Done.Outcome)
	assert.Equal(t, tabtrace.RefusedAfterBarrier, last.Done.Refused, "a crash may be stale: the barrier confirms it")

	require.NoError(t, b.Reload())
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OpReload, last.Call.Op)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)
}
