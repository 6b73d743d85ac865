package chromedpguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestConsole holds that a watcher keeps what the page logged and threw,
// in order, with no option: chromedp enables the Runtime domain on every
// tab. A new document starts an empty log.
func TestConsole(t *testing.T) {
	t.Parallel()
	srv := faultrows.ConsoleServer(t)
	w := watch(t, newTab(t, sharedBrowser), nil)
	ctx := within(t, 10*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/logs"))
	want := faultrows.ConsoleLogged
	eventually(t, "the page's messages", func() bool { return len(w.Console().Messages) >= len(want) })
	got := w.Console()
	assert.Equal(t, want, faultrows.ConsoleLines(got))
	assert.Zero(t, got.Dropped)
	for _, m := range got.Messages {
		assert.Equal(t, srv.URL+"/logs", m.URL, m.Text)
		assert.Positive(t, m.Line, m.Text)
	}

	_, err := w.Eval(ctx, `() => { console.info("from", {a: 1, b: "x"}, [1, 2]); return 1 }`)
	require.NoError(t, err)
	eventually(t, "the eval's message", func() bool { return len(w.Console().Messages) > len(want) })
	assert.Equal(t, append(want, "info: from {a: 1, b: 'x'} (2) [1, 2]"), faultrows.ConsoleLines(w.Console()))

	require.NoError(t, w.Navigate(ctx, srv.URL+"/quiet"))
	assert.Equal(t, chromedpguard.ConsoleLog{}, w.Console(), "a new document")
}

// TestConsoleInTimeout holds that a call that times out on a busy page
// carries what the page logged last, and says no more than before.
func TestConsoleInTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second // the probes need a second of it
	srv := faultrows.ConsoleServer(t)
	w := watch(t, newTab(t, sharedBrowser), &chromedpguard.Options{EvalTimeout: timeout})
	ctx := within(t, 20*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/quiet"))
	_, err := w.Eval(ctx, faultrows.ConsoleSteps)
	require.NoError(t, err)
	eventually(t, "the steps", func() bool { return len(w.Console().Messages) == 7 })

	_, err = w.Eval(ctx, `() => 1`)
	faultrows.CheckConsoleTimeout(t, err)
}
