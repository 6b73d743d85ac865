package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestDialogWait holds DialogWait, for a program whose own handler answers
// dialogs: a call in flight waits for a dialog that closes within the
// grace, a call made meanwhile goes ahead, and a dialog still open after
// the grace is refused as under DialogRefuse.
func TestDialogWait(t *testing.T) {
	t.Run("closed within the grace", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{Dialogs: tabstate.DialogWait})
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- fx.tab.Do(deadline(t), "", func(ctx context.Context) error {
				select { // the page answers once the dialog closes
				case <-release:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
		time.Sleep(10 * time.Millisecond)
		fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert"}))
		require.NoError(t, fx.tab.Do(deadline(t), "", ok), "a call while the program's handler has the dialog")
		fx.f.Push(enginetest.Page(sess, tabstate.DialogClosed{}))
		close(release)
		require.NoError(t, <-done, "the call in flight goes on")
	})
	t.Run("open past the grace", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{Dialogs: tabstate.DialogWait})
		done := make(chan error, 1)
		go func() { done <- fx.tab.Do(deadline(t), "", hang) }()
		time.Sleep(10 * time.Millisecond)
		fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert", Message: "stuck"}))
		require.ErrorIs(t, <-done, tabstate.ErrDialogOpen, "cut short once the grace is over")
		require.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrDialogOpen)
		assert.Zero(t, fx.f.Count("Page.handleJavaScriptDialog"), "the program's dialog is left to the program")
	})
}

// TestDialogClosedByAnotherClient holds that, under DialogRefuse, a dialog
// another client closes at once is logged with the policy to use.
func TestDialogClosedByAnotherClient(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	fx := setup(t, enginetest.EventsFirst, engine.Config{Logger: log})
	fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert"}))
	fx.f.Push(enginetest.Page(sess, tabstate.DialogClosed{}))
	assert.Equal(t, 1, strings.Count(buf.String(), "set Options.Dialogs to DialogWait"), buf.String())

	// A dialog HandleDialog closes is the watcher's own: no warning.
	fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert"}))
	require.NoError(t, fx.tab.HandleDialog(deadline(t), true, ""))
	fx.f.Push(enginetest.Page(sess, tabstate.DialogClosed{}))
	assert.Equal(t, 1, strings.Count(buf.String(), "set Options.Dialogs to DialogWait"), buf.String())
}

// syncBuffer is a bytes.Buffer a logger and a test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
