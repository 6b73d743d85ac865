package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// waitLoad is a Do's fn as a crawler writes it: it waits for a load with
// one of rod's wait helpers, which answer nothing when their context ends.
// started, when not nil, is closed once it waits.
func waitLoad(started chan<- struct{}, before string) func(p *rod.Page) error {
	return func(p *rod.Page) error {
		wait := p.WaitEvent(&proto.PageLoadEventFired{})
		if before != "" {
			if _, err := (proto.RuntimeEvaluate{Expression: before}).Call(p); err != nil {
				return err
			}
		}
		if started != nil {
			close(started)
		}
		wait()
		return nil
	}
}

// TestDoCutShortIsNoSuccess holds that a Do whose fn answers nil after
// its call was cut short answers why it was cut: the deadline, the eval
// timeout's or the caller's, with what the tab was doing, as an eval's
// timeout does; a crash, a dialog; the watcher's Close.
func TestDoCutShortIsNoSuccess(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	loop := `setTimeout(() => { for (;;) {} }, 100)`

	t.Run("eval timeout on a busy page", func(t *testing.T) {
		t.Parallel()
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
		err := w.Do(testbrowser.Context(t, 20*time.Second), waitLoad(nil, loop))
		var te *tabguard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, tabguard.TimeoutBusyScript, te.Cause, te.Error())
		assert.Equal(t, 2*time.Second, te.Limit)
		assert.Equal(t, "guarded call", te.Op)
	})
	t.Run("caller's deadline on a busy page", func(t *testing.T) {
		t.Parallel()
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 20 * time.Second, TerminateOnTimeout: true})
		ctx, cancel := context.WithTimeout(testbrowser.Context(t, 20*time.Second), 2*time.Second)
		defer cancel()
		err := w.Do(ctx, waitLoad(nil, loop))
		var te *tabguard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, tabguard.TimeoutBusyScript, te.Cause, te.Error())
		assert.LessOrEqual(t, te.Limit, 2*time.Second, "the time the call had")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		page := loadedPage(t, srv)
		w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- w.Do(testbrowser.Context(t, 20*time.Second), waitLoad(started, "")) }()
		require.NoError(t, waitStarted(t, started, done))
		crash(t, page)
		assert.ErrorIs(t, <-done, tabguard.ErrTabCrashed)
	})
	t.Run("dialog", func(t *testing.T) {
		t.Parallel()
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 20 * time.Second})
		err := w.Do(testbrowser.Context(t, 20*time.Second), waitLoad(nil, `setTimeout(() => alert("hi"), 50)`))
		assert.ErrorIs(t, err, tabguard.ErrDialogOpen)
		require.NoError(t, w.HandleDialog(testbrowser.Context(t, 10*time.Second), true, ""))
	})
	t.Run("watcher closed", func(t *testing.T) {
		t.Parallel()
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 20 * time.Second})
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- w.Do(testbrowser.Context(t, 20*time.Second), waitLoad(started, "")) }()
		require.NoError(t, waitStarted(t, started, done))
		require.NoError(t, w.Close())
		assert.ErrorIs(t, <-done, tabguard.ErrWatcherClosed)
	})
}

// waitStarted waits, within 10 s, until a fn run in the background closes
// started, or returns the error of a call that ended first.
func waitStarted(t *testing.T, started <-chan struct{}, done <-chan error) error {
	t.Helper()
	select {
	case <-started:
		return nil
	case err := <-done:
		return fmt.Errorf("the call ended before its fn waited: %w", err)
	case <-testbrowser.Context(t, 10*time.Second).Done():
		return errors.New("the fn never started waiting within 10s")
	}
}
