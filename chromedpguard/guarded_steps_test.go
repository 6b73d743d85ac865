package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// TestGuardStepsNamesTheStep holds that a guarded list of steps that runs
// out of time names the step that was running, by its place and the func
// that made it, and that a crash cutting it short names it too.
func TestGuardStepsNamesTheStep(t *testing.T) {
	t.Parallel()
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 3 * time.Second})
		err := chromedp.Do(f.tabWithin(t, 20*time.Second), chromedpguard.GuardSteps(f.w,
			chromedp.Navigate(f.srv.URL),
			chromedp.WaitReady(chromedp.CSS("body")),
			chromedp.WaitVisible(chromedp.CSS("#never")),
		))
		var te *chromedpguard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		// chromedp.WaitVisible's step is a closure of chromedp.QueryAfter,
		// which every query makes.
		assert.Equal(t, "action 3 of 3, chromedp.QueryAfter", te.Step)
		assert.Contains(t, te.Error(), "guarded chromedp action (action 3 of 3, chromedp.QueryAfter) timed out after 3s")
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 20 * time.Second})
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- chromedp.Do(f.tabWithin(t, 20*time.Second), chromedpguard.GuardSteps(f.w,
				chromedp.WaitReady(chromedp.CSS("body")),
				chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
					close(started)
					<-ctx.Done()
					return nil
				}),
			))
		}()
		require.NoError(t, waitStarted(t, started, done))
		f.crash(t)
		err := <-done
		var be *chromedpguard.BlockedError
		require.ErrorAs(t, err, &be, "%v", err)
		assert.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
		assert.Equal(t, "action 2 of 2, chromedp.Func", be.Step)
	})
}
