package chromedp015guard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// TestEvalAndActions: the healthy path, through the watcher and through
// chromedp.Run with the guarded actions, as a chromedp v0.15 program runs
// them. It runs alone, before the parallel tests: a tab another test opens
// hides this one, and Chrome takes no screenshot of a hidden tab.
func TestEvalAndActions(t *testing.T) {
	f := newFixture(t, nil)
	ctx := within(t, 10*time.Second)
	res, err := f.w.Eval(ctx, `(a, b) => a + b`, 40, 2)
	require.NoError(t, err)
	assert.Equal(t, "42", string(res.Value))
	res, err = f.w.Eval(ctx, `async () => document.querySelector("p").textContent`)
	require.NoError(t, err)
	assert.JSONEq(t, `"héllo"`, string(res.Value))

	var title, text string
	require.NoError(t, chromedp.Run(f.tab,
		chromedp015guard.Evaluate(f.w, `() => document.title`, &title),
		chromedp015guard.Guard(f.w, chromedp.Text("p", &text, chromedp.ByQuery))))
	assert.Equal(t, "ok", title)
	assert.Equal(t, "héllo", text)

	_, err = f.w.Eval(ctx, `() => { throw new Error("boom") }`)
	var exc *runtime.ExceptionDetails
	require.ErrorAs(t, err, &exc, "an exception, as chromedp.Evaluate returns one")
	assert.Contains(t, err.Error(), "boom")

	d, err := f.w.DOM(ctx, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<p>héllo</p>")
	shot, err := f.w.Screenshot(ctx, false, 0)
	require.NoError(t, err)
	assert.NotEmpty(t, shot)
	require.ErrorIs(t, f.w.Do(ctx, func(context.Context) error { return nil }), chromedp015guard.ErrInvalidArgument,
		"Do wants the tab's chromedp context")
}

// TestCrash: a crashed tab is refused with the crash at once, its cookies
// still answer (the browser process has them), an eval in flight is cut
// short, and Reload recovers it for the very next call.
func TestCrash(t *testing.T) {
	t.Parallel()
	f := newFixture(t, &chromedp015guard.Options{EvalTimeout: 20 * time.Second})
	f.runJS(t, `document.cookie = "tabguard=1"`)
	done := make(chan error, 1)
	go func() {
		_, err := f.w.Eval(within(t, 30*time.Second), `() => new Promise(r => setTimeout(r, 15000))`)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	f.crash(t)
	err := <-done
	require.ErrorIs(t, err, chromedp015guard.ErrTabCrashed, "the eval in flight")
	assert.EqualError(t, err, "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)")
	var title string
	err = chromedp.Run(f.tab, chromedp015guard.Evaluate(f.w, `() => document.title`, &title))
	require.ErrorIs(t, err, chromedp015guard.ErrTabCrashed, "refused up front")
	cookies, err := f.w.Cookies(within(t, 5*time.Second))
	require.NoError(t, err)
	require.Len(t, cookies, 1)
	assert.Equal(t, "tabguard", cookies[0].Name)

	require.NoError(t, f.w.Reload(within(t, 20*time.Second)))
	var n int
	require.NoError(t, chromedp.Run(f.tab, chromedp015guard.Evaluate(f.w, `() => 6 * 7`, &n)), "the very next call")
	assert.Equal(t, 42, n)
}

// TestDialogs: a dialog cuts an eval short and is refused until handled;
// under DialogWait the program's own handler answers it.
func TestDialogs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := within(t, 10*time.Second)
	_, err := f.w.Eval(ctx, `() => { alert("hi"); return 1 }`)
	require.ErrorIs(t, err, chromedp015guard.ErrDialogOpen)
	require.NoError(t, f.w.HandleDialog(ctx, true, ""))
	_, err = f.w.Eval(ctx, `() => 1`)
	require.NoError(t, err, "the very next call after HandleDialog")

	g := newFixture(t, &chromedp015guard.Options{Dialogs: chromedp015guard.DialogWait})
	chromedp.ListenTarget(g.tab, func(ev any) {
		if isDialogOpening(ev) {
			go func() { // off the listener's goroutine
				_ = chromedp.Run(g.tab, chromedp.ActionFunc(func(ctx context.Context) error {
					return handleDialog(ctx)
				}))
			}()
		}
	})
	res, err := g.w.Eval(ctx, `() => { alert("hi"); return "after" }`)
	require.NoError(t, err, "the program's handler answered the dialog")
	assert.Equal(t, `"after"`, string(res.Value))
}

// TestTimeoutSaysWhy: a script that holds the page times out with its
// cause, and TerminateOnTimeout stops it so the tab answers again; one
// deadline for a job ends with the guard's timeout too.
func TestTimeoutSaysWhy(t *testing.T) {
	t.Parallel()
	// 2 s: the probes get the last second, enough on a loaded machine.
	f := newFixture(t, &chromedp015guard.Options{EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
	_, err := f.w.Eval(within(t, 10*time.Second), `() => { while (true) {} }`)
	var te *chromedp015guard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, chromedp015guard.TimeoutBusyScript, te.Cause)
	assert.Contains(t, err.Error(), "terminat", "TerminateOnTimeout stops the loop")

	g := newFixture(t, &chromedp015guard.Options{EvalTimeout: time.Minute})
	g.runJS(t, `while (true) {}`)
	job, cancel := context.WithTimeout(within(t, 10*time.Second), time.Second)
	defer cancel()
	_, err = g.w.Screenshot(job, false, 0)
	require.ErrorAs(t, err, &te, "the job's deadline ends the call with the guard's timeout: %v", err)
	assert.Contains(t, err.Error(), "screenshot timed out")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestTabs: the BrowserWatcher lists the tabs and reports a crash.
func TestTabs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	bw, err := chromedp015guard.WatchBrowser(sharedBrowser, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	found := false
	for _, ti := range bw.Tabs() {
		found = found || ti.TargetID == f.w.TargetID()
	}
	assert.True(t, found, "the watched tab is listed")
	f.crash(t)
	ctx := within(t, 10*time.Second)
	for {
		select {
		case c := <-bw.Changes():
			if c.Kind == chromedp015guard.TabCrashed && c.Tab.TargetID == f.w.TargetID() {
				return
			}
		case <-ctx.Done():
			t.Fatal("no TabCrashed")
		}
	}
}
