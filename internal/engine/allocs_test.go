//go:build !race

package engine_test

import (
	"context"
	"testing"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// maxGuardAllocs is what the guard may allocate around a healthy call: the
// call, its context and its clock's timer. The backends' whole eval may
// allocate at most 10 more than the plain driver call (BENCHMARKS.md).
const maxGuardAllocs = 6

// TestGuardAllocations holds the guard's allocations on a healthy call,
// counted over the fake driver, so a change that adds one fails here
// before a benchmark run would show it.
func TestGuardAllocations(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	ctx, cancel := context.WithCancel(context.Background()) // a caller's context, as most are
	defer cancel()
	allocs := testing.AllocsPerRun(1000, func() {
		if err := fx.tab.Do(ctx, "", ok); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > maxGuardAllocs {
		t.Errorf("Tab.Do allocates %.1f times on a healthy call; at most %d", allocs, maxGuardAllocs)
	}
	t.Logf("Tab.Do: %.1f allocations a healthy call", allocs)
}
