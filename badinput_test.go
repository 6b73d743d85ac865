package tabguard_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestWatchPageOfClosedBrowser(t *testing.T) {
	t.Parallel()
	b := dedicated(t)
	page := testbrowser.NewPage(t, b)
	require.NoError(t, b.Context(testbrowser.Context(t, 5*time.Second)).Close())
	eventually(t, "rod to see the browser close", func() bool { return page.GetContext().Err() != nil })

	start := time.Now()
	w, err := tabguard.Watch(page, nil)
	require.Error(t, err)
	assert.Nil(t, w)
	assert.True(t, errors.Is(err, tabguard.ErrTabClosed) || errors.Is(err, tabguard.ErrBrowserGone), "error: %v", err)
	var be *tabguard.BlockedError
	assert.ErrorAs(t, err, &be)
	t.Logf("refused in %v", time.Since(start))
}

func TestWatcherConcurrentEvalClose(t *testing.T) {
	t.Parallel()
	w, err := tabguard.Watch(loadedPage(t, serve(t)), &tabguard.Options{EvalTimeout: 5 * time.Second})
	require.NoError(t, err)
	ctx := testbrowser.Context(t, 20*time.Second)

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	began := time.Now()
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			js := `() => 1`
			if i%2 == 1 {
				js = `() => new Promise(r => setTimeout(() => r(1), 3000))` // in flight at Close
			}
			for range 4 {
				_, err := w.Eval(ctx, js)
				errs <- err
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	closed := make(chan error, 2)
	go func() { closed <- w.Close() }()
	go func() { closed <- w.Close() }()
	for range 2 {
		select {
		case err := <-closed:
			require.NoError(t, err)
		case <-time.After(5 * time.Second):
			t.Fatal("Close still waiting after 5s")
		}
	}
	t.Logf("Close returned %v after the evals started", time.Since(began))
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		n++
		if err != nil {
			assert.ErrorIs(t, err, tabguard.ErrWatcherClosed)
		}
	}
	assert.Equal(t, 64, n)
	_, err = w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrWatcherClosed)
	assert.Equal(t, "watcher is closed", err.Error())
	_, err = w.DOM(ctx, 0)
	require.ErrorIs(t, err, tabguard.ErrWatcherClosed)
}

// A dialog that opened before Watch cannot be learned: Chrome holds every
// page command while it is open and replays no event. The watcher still
// answers in time, and sees the dialog close and the next one open.
func TestWatchWithDialogAlreadyOpen(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	pctx := func() *rod.Page { return page.Context(testbrowser.Context(t, 5*time.Second)) }
	_, err := proto.RuntimeEvaluate{Expression: `setTimeout(() => alert("before"), 0)`}.Call(pctx())
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond)

	// 2 s: the probes get the last second, in which the browser process
	// answers even on a loaded machine, which tells a hung renderer.
	const timeout = 2 * time.Second
	w := watch(t, page, &tabguard.Options{EvalTimeout: timeout})
	start := time.Now()
	_, err = w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	assert.Contains(t, err.Error(), "answers nothing, not even an interrupt: a JavaScript dialog opened before the watcher did, or the renderer hangs outside JavaScript, or it died and Chrome has not reported the crash yet: Watcher.Recover dismisses a dialog")
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, timeout, te.Limit, "the eval's own deadline ended it")
	assert.Equal(t, tabguard.TimeoutHung, te.Cause)
	t.Logf("answered in %v", time.Since(start))

	// As the advice says: Recover dismisses the dialog it could not see.
	r, err := w.Recover(testbrowser.Context(t, 10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, tabguard.DismissedDialog, r.Action)
	_, err = w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.NoError(t, err, "the next call answers")

	_, err = proto.RuntimeEvaluate{Expression: `setTimeout(() => alert("after"), 0)`}.Call(pctx())
	require.NoError(t, err)
	eventually(t, "the second dialog", blockedBy(t, w, tabguard.ErrDialogOpen))
	assert.Contains(t, w.Blocked(testbrowser.Context(t, 5*time.Second)).Error(), `alert "after"`)
	require.NoError(t, proto.PageHandleJavaScriptDialog{Accept: true}.Call(pctx()))
	eventually(t, "the dialog to close", func() bool { return w.Blocked(testbrowser.Context(t, 5*time.Second)) == nil })
}
