// Package testctx gives tests a context that ends after a while with no
// deadline of its own.
//
// A watcher's call is bounded by its context's deadline when it has one,
// and by the watcher's eval timeout when it has none. A test that holds a
// call to the eval timeout, and must still never hang, runs it under
// Within: the context is canceled after d, so a bug fails the test instead
// of stalling the run, but the call under test sees no deadline and takes
// the eval timeout as its bound, as it does under context.Background. A
// test of the caller's deadline uses context.WithTimeout.
package testctx

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Within returns a context derived from parent that is canceled after d or
// when t ends, whichever is first, with no deadline of its own (unless
// parent has one).
func Within(t testing.TB, parent context.Context, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancelCause(parent)
	timer := time.AfterFunc(d, func() {
		cancel(fmt.Errorf("testctx: the test's %v ran out", d))
	})
	t.Cleanup(func() {
		timer.Stop()
		cancel(nil)
	})
	return ctx
}
