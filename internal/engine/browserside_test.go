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

// TestDoActionReportsTheDeath holds that a program's own call that
// answers nil although the tab's death cut it short (chromedp's Navigate
// on a crashed frame) reports the death.
func TestDoActionReportsTheDeath(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	swallow := func(ctx context.Context) error {
		<-ctx.Done()
		return nil // the action took its context's end for its own
	}
	done := make(chan error, 1)
	go func() { done <- fx.tab.DoAction(deadline(t), "guarded chromedp action", swallow) }()
	time.Sleep(10 * time.Millisecond)
	fx.f.Push(crash("crashed")...)
	assert.ErrorIs(t, <-done, tabstate.ErrTabCrashed)

	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	require.ErrorIs(t, fx.tab.DoAction(past, "screenshot", ok), tabstate.ErrTabCrashed, "the tab's refusal wins over a deadline that passed")
	require.NoError(t, fx.tab.DoBrowserSide(deadline(t), "cookies", ok))
	err := fx.tab.DoBrowserSide(past, "cookies", ok)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.EqualError(t, err, "cookies timed out after 0s (the caller's deadline had passed before the call)")
}
