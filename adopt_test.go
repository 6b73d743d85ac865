package tabguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestOneDeadlineForAJob gives a whole job (navigate, eval, HTML,
// screenshot) one deadline, as a crawler bounds a page visit, on a page
// whose script holds the renderer: the job ends at that deadline, with
// the guard's timeout naming the call and what the tab was doing, not a
// bare context error.
func TestOneDeadlineForAJob(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	w := watch(t, testbrowser.Page(t), &tabguard.Options{EvalTimeout: time.Minute})
	const budget = 4 * time.Second
	job, cancel := context.WithTimeout(testbrowser.Context(t, 30*time.Second), budget)
	defer cancel()

	require.NoError(t, w.Navigate(job, srv.URL))
	_, err := w.Eval(job, `() => { setTimeout(() => { while (true) {} }, 0); return 1 }`)
	require.NoError(t, err)
	_, err = w.Eval(job, `() => document.title`)
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te, "the job's deadline ends the eval with the guard's timeout: %v", err)
	assert.Equal(t, tabguard.TimeoutBusyScript, te.Cause, "what the probes found before the job's deadline")
	assert.LessOrEqual(t, te.Limit, budget, "the time the call had")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "eval timed out after")

	_, err = w.DOM(job, 0)
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "DOM read timed out", "a timeout names the call")
	_, err = w.Screenshot(job, false, nil)
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "screenshot timed out")

	// A reason found before the job's deadline wins over it.
	w2 := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: time.Minute})
	job2, cancel2 := context.WithTimeout(testbrowser.Context(t, 30*time.Second), 10*time.Second)
	defer cancel2()
	done := make(chan error, 1)
	go func() {
		_, err := w2.Eval(job2, `() => new Promise(() => {})`)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	_, _ = w2.Eval(testbrowser.Context(t, time.Second), `() => { setTimeout(() => alert("stop"), 0); return 1 }`)
	require.ErrorIs(t, <-done, tabguard.ErrDialogOpen)
}

// TestWatchOutlivesThePageDeadline holds that a watcher lives until Close
// whatever deadline the page it was given carries (page.Timeout).
func TestWatchOutlivesThePageDeadline(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page.Timeout(100*time.Millisecond), nil)
	time.Sleep(300 * time.Millisecond)
	res, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => 6 * 7`)
	require.NoError(t, err, "the page's deadline passed; the watcher lives on")
	assert.Equal(t, 42, res.Value.Int())
}

// TestUncappedDOM reads a page larger than the default cap whole.
func TestUncappedDOM(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	page := testbrowser.Page(t)
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 20*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/big?kb=300"))
	_, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	d, err := w.DOM(ctx, tabguard.UncappedDOM)
	require.NoError(t, err)
	assert.False(t, d.Truncated)
	assert.Greater(t, d.Size, tabguard.DefaultMaxDOMBytes)
	assert.Len(t, d.HTML, d.Size)
	_, err = w.ReadDOM(testbrowser.Context(t, 5*time.Second), tabguard.DOMOptions{MaxBytes: tabguard.UncappedDOM})
	assert.ErrorIs(t, err, tabguard.ErrInvalidArgument, "a window is built in one buffer: DOM reads the whole page")
}

// TestDialogWaitWithOwnHandler is DialogWait with a program's own dialog
// handler, as rod programs write one: a call the page's alert interrupts
// goes on once the handler has accepted it.
func TestDialogWaitWithOwnHandler(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	ctx := testbrowser.Context(t, 10*time.Second)
	go page.Context(ctx).EachEvent(func(e *proto.PageJavascriptDialogOpening) {
		_ = proto.PageHandleJavaScriptDialog{Accept: true}.Call(page.Context(ctx))
	})()
	w := watch(t, page, &tabguard.Options{Dialogs: tabguard.DialogWait})
	res, err := w.Eval(ctx, `() => { alert("hi"); return "after" }`)
	require.NoError(t, err, "the program's handler answered the dialog")
	assert.Equal(t, "after", res.Value.Str())
}
