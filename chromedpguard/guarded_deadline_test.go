package chromedpguard_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// quietWait is a guarded action as a program writes one: it waits, and
// answers nothing when its context ends, as rod's wait helpers do.
// started, when not nil, is closed once it waits.
func quietWait(started chan<- struct{}) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return nil
	})
}

// TestGuardCutShortIsNoSuccess holds that a guarded action that answers
// nil after its call was cut short answers why it was cut: the deadline,
// the eval timeout's or the caller's, with what the tab was doing, as an
// eval's timeout does; a crash, a dialog; the watcher's Close.
func TestGuardCutShortIsNoSuccess(t *testing.T) {
	t.Parallel()
	loop := `setTimeout(() => { for (;;) {} }, 100)`

	t.Run("eval timeout on a busy page", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
		f.runJS(t, loop)
		err := chromedp.Do(f.tabWithin(t, 20*time.Second), chromedpguard.Guard(f.w, quietWait(nil)))
		var te *chromedpguard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, chromedpguard.TimeoutBusyScript, te.Cause, te.Error())
		assert.Equal(t, 2*time.Second, te.Limit)
		assert.Equal(t, "guarded chromedp action", te.Op)
	})
	t.Run("caller's deadline on a busy page", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 20 * time.Second, TerminateOnTimeout: true})
		f.runJS(t, loop)
		ctx, cancel := context.WithTimeout(f.tabWithin(t, 20*time.Second), 2*time.Second)
		defer cancel()
		err := chromedp.Do(ctx, chromedpguard.Guard(f.w, quietWait(nil)))
		var te *chromedpguard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, chromedpguard.TimeoutBusyScript, te.Cause, te.Error())
		assert.LessOrEqual(t, te.Limit, 2*time.Second, "the time the call had")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	for _, tt := range []struct {
		name  string
		fault func(t *testing.T, f *fixture)
		want  error
	}{
		{"crash", func(t *testing.T, f *fixture) { f.crash(t) }, chromedpguard.ErrTabCrashed},
		{"dialog", func(t *testing.T, f *fixture) { f.runJS(t, `setTimeout(() => alert("hi"), 0)`) }, chromedpguard.ErrDialogOpen},
		{"watcher closed", func(t *testing.T, f *fixture) { require.NoError(t, f.w.Close()) }, chromedpguard.ErrWatcherClosed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 20 * time.Second})
			started := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				done <- chromedp.Do(f.tabWithin(t, 20*time.Second), chromedpguard.Guard(f.w, quietWait(started)))
			}()
			require.NoError(t, waitStarted(t, started, done))
			tt.fault(t, f)
			assert.ErrorIs(t, <-done, tt.want)
			if tt.want == chromedpguard.ErrDialogOpen {
				require.NoError(t, f.w.HandleDialog(within(t, 10*time.Second), true, ""))
			}
		})
	}
}

// waitStarted waits, within 10 s, until an action run in the background
// closes started, or returns the error of a call that ended first.
func waitStarted(t *testing.T, started <-chan struct{}, done <-chan error) error {
	t.Helper()
	select {
	case <-started:
		return nil
	case err := <-done:
		return fmt.Errorf("the call ended before its action waited: %w", err)
	case <-within(t, 10*time.Second).Done():
		return errors.New("the action never started waiting within 10s")
	}
}
