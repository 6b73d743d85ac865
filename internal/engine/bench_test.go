//go:build go1.24

package engine_test

import (
	"context"
	"testing"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// BenchmarkDo is the guard's cost on a healthy call, without a browser:
// Tab.Do around a call that answers at once, over the fake driver. The
// call itself allocates nothing, so allocs/op is the guard's own.
func BenchmarkDo(b *testing.B) {
	fx := setupB(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := fx.tab.Do(ctx, "", ok); err != nil {
			b.Fatal(err)
		}
	}
}

// setupB is setup for a benchmark.
func setupB(b *testing.B) *fixture { return setup(b, enginetest.EventsFirst, engine.Config{}) }
