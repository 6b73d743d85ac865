package tabguard_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// fixture is one matrix row's tab: its browser, server, page and watcher.
type fixture struct {
	b    *testbrowser.Browser
	srv  *httptest.Server
	page *rod.Page
	w    *tabguard.Watcher

	timeout time.Duration // the watcher's EvalTimeout
}

// outcome is what one eval returned, and how long it took from a moment the
// row chose: the start of the eval, or the injection of the fault.
type outcome struct {
	res     *proto.RuntimeRemoteObject
	err     error
	elapsed time.Duration
}

// eval runs js on f's watcher and times it from its start.
func (f *fixture) eval(t *testing.T, js string) outcome {
	t.Helper()
	start := time.Now()
	res, err := f.w.Eval(testbrowser.Context(t, 30*time.Second), js)
	return outcome{res, err, time.Since(start)}
}

// evalAsync starts js on f's watcher and returns a func that waits for its
// outcome, timed from the moment that func is called with from.
func (f *fixture) evalAsync(t *testing.T, js string) func(from time.Time) outcome {
	t.Helper()
	return inFlight(t, func(ctx context.Context) (*proto.RuntimeRemoteObject, error) { return f.w.Eval(ctx, js) })
}

// inFlight starts eval and returns a func that waits for its outcome, timed
// from the moment that func is called with from.
func inFlight(t *testing.T, eval func(ctx context.Context) (*proto.RuntimeRemoteObject, error)) func(from time.Time) outcome {
	t.Helper()
	type answer struct {
		res *proto.RuntimeRemoteObject
		err error
		at  time.Time
	}
	done := make(chan answer, 1)
	go func() {
		res, err := eval(testbrowser.Context(t, 30*time.Second))
		done <- answer{res, err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond) // let the eval reach the renderer
	return func(from time.Time) outcome {
		select {
		case a := <-done:
			return outcome{a.res, a.err, a.at.Sub(from)}
		case <-time.After(30 * time.Second):
			t.Fatal("eval still in flight after 30s")
			return outcome{}
		}
	}
}

// call runs a CDP call on the page's session under a 5 s context.
func (f *fixture) call(t *testing.T, req interface {
	Call(proto.Client) error
}) {
	t.Helper()
	require.NoError(t, req.Call(f.page.Context(testbrowser.Context(t, 5*time.Second))))
}

// runJS evaluates expression on the tab with CDP directly, bypassing the
// watcher, as the page itself or another client would.
func (f *fixture) runJS(t *testing.T, expression string) {
	t.Helper()
	_, err := proto.RuntimeEvaluate{Expression: expression}.Call(f.page.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
}

// dedicated launches a browser of the row's own, for faults that would take
// other tests' tabs with them, and ends it when t ends.
func dedicated(t *testing.T) *testbrowser.Browser {
	t.Helper()
	b, err := testbrowser.Launch()
	require.NoError(t, err)
	t.Cleanup(b.Close)
	return b
}

// killRenderers SIGKILLs every renderer process of browser b
// (faultrows.KillRenderers), which should hold only the row's tab.
func killRenderers(t *testing.T, b *testbrowser.Browser) int {
	t.Helper()
	n, err := faultrows.KillRenderers(b.Launcher.PID())
	if errors.Is(err, faultrows.ErrNoProcfs) {
		t.Skip("this row needs Linux procfs: ", err)
	}
	require.NoError(t, err)
	return n
}

// waitBlocked waits until f's watcher refuses evals with reason.
func (f *fixture) waitBlocked(t *testing.T, reason error) {
	t.Helper()
	eventually(t, "a refusal with "+reason.Error(), blockedBy(t, f.w, reason))
}

// crashReported subscribes to Chrome's crash report for f's tab and returns
// a func that waits for it. In-flight rows time the eval from the report,
// so the bound measures tabguard, not how long Chrome takes to notice.
func crashReported(t *testing.T, f *fixture) func() {
	t.Helper()
	ctx := testbrowser.Context(t, 10*time.Second)
	seen := make(chan struct{})
	wait := f.page.Browser().Context(ctx).EachEvent(func(e *proto.TargetTargetCrashed) bool {
		return e.TargetID == f.page.TargetID
	})
	go func() { defer close(seen); wait() }()
	return func() {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatal("Chrome reported no crash within 10s")
		}
	}
}
