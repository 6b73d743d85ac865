package tabguard_test

import (
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestWatcherDo(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})
	ctx := testbrowser.Context(t, 30*time.Second)

	err := w.Do(ctx, func(p *rod.Page) error {
		return proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: 10, Y: 10}.Call(p)
	})
	require.NoError(t, err)
	require.ErrorIs(t, w.Do(ctx, nil), tabguard.ErrInvalidArgument)

	// A call in flight is cut short by a crash, as an eval is.
	done := make(chan error, 1)
	go func() {
		done <- w.Do(ctx, func(p *rod.Page) error {
			_, err := proto.RuntimeEvaluate{Expression: "new Promise(() => {})", AwaitPromise: true}.Call(p)
			return err
		})
	}()
	time.Sleep(200 * time.Millisecond)
	crash(t, page)
	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrTabCrashed)
	case <-time.After(10 * time.Second):
		t.Fatal("Do still waiting 10s after the crash")
	}

	called := false
	err = w.Do(ctx, func(*rod.Page) error { called = true; return nil })
	require.ErrorIs(t, err, tabguard.ErrTabCrashed)
	assert.False(t, called, "a refused tab must not be touched")
}
