package tabguard_test

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// syncBuffer is a bytes.Buffer safe for the watcher's goroutine and the test's.
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

func TestWatcherLogs(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	page := loadedPage(t, serve(t))
	w := watch(t, page, &tabguard.Options{
		EvalTimeout: 200 * time.Millisecond,
		Logger:      slog.New(slog.NewTextHandler(&logs, nil)),
	})
	ctx := testbrowser.Context(t, 10*time.Second)

	_, err := w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	assert.Empty(t, logs.String(), "a healthy eval logs nothing")

	_, err = w.Eval(ctx, `() => new Promise(() => {})`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	assert.Contains(t, logs.String(), `msg="tabguard: eval timed out"`)
	assert.Contains(t, logs.String(), "eval timed out after 200ms")

	crash(t, page)
	eventually(t, "the crash", blockedBy(t, w, tabguard.ErrTabCrashed))
	_, err = w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrTabCrashed)
	assert.Contains(t, logs.String(), `msg="tabguard: tab renderer crashed"`)
	assert.Contains(t, logs.String(), `msg="tabguard: call refused"`)
	assert.Contains(t, logs.String(), "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)")
}

// TestWatcherSilentByDefault swaps the default logger, so it does not run in parallel.
func TestWatcherSilentByDefault(t *testing.T) {
	var logs syncBuffer
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil))) // must stay unused

	w := watch(t, loadedPage(t, serve(t)), &tabguard.Options{EvalTimeout: 100 * time.Millisecond})
	_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => new Promise(() => {})`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	assert.Empty(t, logs.String())
}
