package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestDoBrowserSide holds that a call the browser process answers goes to
// a crashed tab and rides out a crash in flight, but ends with the tab.
func TestDoBrowserSide(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- fx.tab.DoBrowserSide(deadline(t), "cookies", func(ctx context.Context) error {
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	time.Sleep(10 * time.Millisecond)
	fx.f.Push(crash("crashed")...)
	require.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrTabCrashed, "a renderer call is refused")
	require.NoError(t, fx.tab.DoBrowserSide(deadline(t), "cookies", ok), "a browser-side call goes ahead")
	close(release)
	require.NoError(t, <-done, "the crash does not cut a browser-side call short")

	go func() { done <- fx.tab.DoBrowserSide(deadline(t), "cookies", hang) }()
	time.Sleep(10 * time.Millisecond)
	fx.f.Push(func(b *engine.Browser) { b.TargetDestroyed(target) })
	err := <-done
	assert.ErrorIs(t, err, tabstate.ErrTabClosed, "the tab's end does")
	assert.ErrorIs(t, fx.tab.DoBrowserSide(deadline(t), "cookies", ok), tabstate.ErrTabClosed)
}
