package tabguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestConsole holds that a watcher with Options.Console keeps what the page
// logged and threw, in order, including what it logged before Watch, and
// that a new document starts an empty log.
func TestConsole(t *testing.T) {
	t.Parallel()
	srv := faultrows.ConsoleServer(t)
	page := testbrowser.Page(t)
	require.NoError(t, navigate(t, page, srv.URL+"/logs"))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
	w := watch(t, page, &tabguard.Options{Console: true})
	want := faultrows.ConsoleLogged
	// What the page logged before Watch, Chrome replays as the Runtime
	// domain is enabled.
	eventually(t, "the page's messages", func() bool { return len(w.Console().Messages) >= len(want) })
	got := w.Console()
	assert.Equal(t, want, faultrows.ConsoleLines(got))
	assert.Zero(t, got.Dropped)
	for _, m := range got.Messages {
		assert.Equal(t, srv.URL+"/logs", m.URL, m.Text)
		assert.Positive(t, m.Line, m.Text)
		assert.False(t, m.Time.IsZero(), m.Text)
	}

	ctx := testbrowser.Context(t, 10*time.Second)
	_, err := w.Eval(ctx, `() => { console.info("from", {a: 1, b: "x"}, [1, 2]); return 1 }`)
	require.NoError(t, err)
	_, err = w.Eval(ctx, `() => { throw new Error("an eval's own") }`)
	require.Error(t, err)
	_, err = w.Eval(ctx, `() => { console.debug("last") }`)
	require.NoError(t, err)
	// A call's events can trail its answer: rod fans them out. They come
	// in order, so once the last is in, so is any before it.
	eventually(t, "the last message", func() bool { return len(w.Console().Messages) >= len(want)+2 })
	assert.Equal(t, append(want, "info: from {a: 1, b: 'x'} (2) [1, 2]", "debug: last"), faultrows.ConsoleLines(w.Console()),
		"an eval's exception is its error, not the console's")

	require.NoError(t, w.Navigate(ctx, srv.URL+"/quiet"))
	assert.Empty(t, w.Console().Messages, "a new document")
	assert.Zero(t, w.Console().Dropped)
}

// TestConsoleOffByDefault holds that a watcher without Options.Console
// keeps nothing: the Runtime domain is not enabled.
func TestConsoleOffByDefault(t *testing.T) {
	t.Parallel()
	srv := faultrows.ConsoleServer(t)
	page := loadedPage(t, srv)
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 10*time.Second)
	_, err := w.Eval(ctx, `() => { console.log("unheard"); return 1 }`)
	require.NoError(t, err)
	_, err = w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	assert.Equal(t, tabguard.ConsoleLog{}, w.Console())
}

// TestConsoleInTimeout holds that a call that times out on a busy page
// carries what the page logged last, and says no more than before.
func TestConsoleInTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second // see TestWatcherEvalTimesOut
	page := loadedPage(t, faultrows.ConsoleServer(t))
	w := watch(t, page, &tabguard.Options{Console: true, EvalTimeout: timeout})
	ctx := testbrowser.Context(t, 20*time.Second)
	_, err := w.Eval(ctx, faultrows.ConsoleSteps)
	require.NoError(t, err)
	eventually(t, "the steps", func() bool { return len(w.Console().Messages) == 7 })

	_, err = w.Eval(ctx, `() => 1`)
	faultrows.CheckConsoleTimeout(t, err)
}

// TestConsoleInRefusal holds that a refusal carries the page's last
// messages: here of a tab whose renderer crashed.
func TestConsoleInRefusal(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, faultrows.ConsoleServer(t))
	w := watch(t, page, &tabguard.Options{Console: true})
	_, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => { console.error("out of memory soon"); return 1 }`)
	require.NoError(t, err)
	eventually(t, "the message", func() bool { return len(w.Console().Messages) == 1 })
	crash(t, page)
	eventually(t, "crash to be seen", blockedBy(t, w, tabguard.ErrTabCrashed))

	_, err = w.Eval(context.Background(), `() => 1`)
	var be *tabguard.BlockedError
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Console, 1)
	assert.Equal(t, tabguard.ConsoleMessage{Type: "error", Text: "out of memory soon", Time: be.Console[0].Time}, be.Console[0])
}
