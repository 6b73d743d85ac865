package tabguard_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestCloseTabAskBeforeClose holds Options.AskBeforeClose on a page that
// asks to stay: CloseTab refuses at once with ErrDialogOpen "beforeunload"
// and leaves the tab and the watcher open, refused while the dialog is;
// once HandleDialog dismisses it, the next eval answers, at once. With a
// beforeunload dialog already open (a navigation asked), CloseTab refuses
// with no new dialog. A page with no handler closes.
func TestCloseTabAskBeforeClose(t *testing.T) {
	t.Parallel()
	opts := func() *tabguard.Options {
		return &tabguard.Options{EvalTimeout: lifecycleTimeout, AskBeforeClose: true}
	}
	refusedClose := func(t *testing.T, f *fixture) {
		t.Helper()
		err := f.w.CloseTab(testbrowser.Context(t, 10*time.Second))
		require.ErrorIs(t, err, tabguard.ErrDialogOpen)
		var be *tabguard.BlockedError
		require.True(t, errors.As(err, &be), "a *BlockedError: %v", err)
		assert.Equal(t, `beforeunload ""`, be.Detail)
		assert.True(t, listed(t, f), "the tab stays")
		_, err = f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
		require.ErrorIs(t, err, tabguard.ErrDialogOpen, "refused while the dialog is open")
		require.NoError(t, f.w.HandleDialog(testbrowser.Context(t, 10*time.Second), false, "")) // stay
		res, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 6 * 7`)
		require.NoError(t, err, "eval after the dialog was dismissed")
		assert.Equal(t, 42, res.Value.Int())
	}
	t.Run("asked by the close", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, opts())
		armBeforeUnload(t, f)
		refusedClose(t, f)
	})
	t.Run("dialog open already", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, opts())
		armBeforeUnload(t, f)
		require.ErrorIs(t, f.w.Navigate(testbrowser.Context(t, 10*time.Second), f.srv.URL+"/?next"), tabguard.ErrDialogOpen)
		refusedClose(t, f)
	})
	t.Run("page with no handler", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, opts())
		require.NoError(t, f.w.CloseTab(testbrowser.Context(t, 10*time.Second)))
		assert.False(t, listed(t, f), "the tab is closed")
	})
}

// listed reports whether the browser lists f's tab.
func listed(t *testing.T, f *fixture) bool {
	t.Helper()
	targets, err := proto.TargetGetTargets{}.Call(f.b.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
	for _, ti := range targets.TargetInfos {
		if ti.TargetID == f.page.TargetID {
			return true
		}
	}
	return false
}
