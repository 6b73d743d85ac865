// Package tracerec is a tabtrace.Trace that keeps what it is told, for the
// backends' tests of their Options.Trace.
package tracerec

import (
	"context"
	"sync"

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
