package chromedp015guard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// loggingPage logs three lines as it loads, then throws from a timer.
const loggingPage = `<!doctype html><title>logs</title><script>
console.log("hello", 42);
console.warn("careful %s", "now");
console.error(new Error("bad"));
setTimeout(() => { throw new Error("boom") });
</script>`

// consoleServer serves loggingPage at /logs and a page that says nothing
// at /quiet.
func consoleServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/logs", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, loggingPage) })
	mux.HandleFunc("/quiet", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>quiet</title>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// lines are the types and texts of a console log, each "type: text".
func lines(log chromedp015guard.ConsoleLog) []string {
	var out []string
	for _, m := range log.Messages {
		first, _, _ := strings.Cut(m.Text, "\n") // an error's stack follows
		out = append(out, m.Type+": "+first)
	}
	return out
}

// TestConsole holds that a watcher keeps what the page logged and threw,
// in order, with no option: chromedp enables the Runtime domain on every
// tab. A new document starts an empty log.
func TestConsole(t *testing.T) {
	t.Parallel()
	srv := consoleServer(t)
	w := newFixture(t, nil).w
	ctx := within(t, 10*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/logs"))
	want := []string{"log: hello 42", "warning: careful now", "error: Error: bad", "exception: Uncaught Error: boom"}
	eventually(t, "the page's messages", func() bool { return len(w.Console().Messages) >= len(want) })
	got := w.Console()
	assert.Equal(t, want, lines(got))
	assert.Zero(t, got.Dropped)
	for _, m := range got.Messages {
		assert.Equal(t, srv.URL+"/logs", m.URL, m.Text)
		assert.Positive(t, m.Line, m.Text)
	}

	_, err := w.Eval(ctx, `() => { console.info("from", {a: 1, b: "x"}, [1, 2]); return 1 }`)
	require.NoError(t, err)
	eventually(t, "the eval's message", func() bool { return len(w.Console().Messages) > len(want) })
	assert.Equal(t, append(want, "info: from {a: 1, b: 'x'} (2) [1, 2]"), lines(w.Console()))

	require.NoError(t, w.Navigate(ctx, srv.URL+"/quiet"))
	assert.Equal(t, chromedp015guard.ConsoleLog{}, w.Console(), "a new document")
}

// TestConsoleInTimeout holds that a call that times out on a busy page
// carries what the page logged last, and says no more than before.
func TestConsoleInTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second // the probes need a second of it
	srv := consoleServer(t)
	w := newFixture(t, &chromedp015guard.Options{EvalTimeout: timeout}).w
	ctx := within(t, 20*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/quiet"))
	_, err := w.Eval(ctx, `() => {
		for (let i = 0; i < 7; i++) console.log("step", i);
		setTimeout(() => { while (true) {} });
		return 1
	}`)
	require.NoError(t, err)
	eventually(t, "the steps", func() bool { return len(w.Console().Messages) == 7 })

	_, err = w.Eval(ctx, `() => 1`)
	var te *chromedp015guard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, chromedp015guard.TimeoutBusyScript, te.Cause)
	require.Len(t, te.Console, 5)
	assert.Equal(t, "step 2", te.Console[0].Text)
	assert.Equal(t, "step 6", te.Console[4].Text)
	assert.NotContains(t, te.Error(), "step")
}
