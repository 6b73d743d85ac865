package chromedp015guard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/testctx"
)

// serveDownload starts a 127.0.0.1 server for t whose every path sends a
// file to save, x.bin, rather than a page.
func serveDownload(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="x.bin"`)
		_, _ = w.Write(make([]byte, 4096))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestGuardedActionsMeetADownload: a guarded chromedp.Navigate that
// became a download, which chromedp v0.15 would wait on for a load that
// never comes, and an Evaluate whose script set the location and waits,
// both answer ErrDownload, as Navigate does.
func TestGuardedActionsMeetADownload(t *testing.T) {
	t.Parallel()
	fileURL := serveDownload(t).URL + "/x.bin"
	for _, tt := range []struct {
		name string
		call func(ctx context.Context, f *fixture) error
		// needs is an event the row needs the cdproto in use to decode.
		needs string
	}{
		{"Guard of Navigate", func(ctx context.Context, f *fixture) error {
			return chromedp.Run(ctx, chromedp015guard.Guard(f.w, chromedp.Navigate(fileURL)))
		}, ""},
		{"Evaluate sets the location and waits", func(ctx context.Context, f *fixture) error {
			return chromedp.Run(ctx, chromedp015guard.Evaluate(f.w, `async (u) => { location.href = u; await new Promise(() => {}) }`, nil, fileURL))
		}, "Page.frameStartedNavigating"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != "" && !knows(tt.needs) {
				// The event tells the navigation from a download of the
				// page's own; without it the eval runs to its timeout.
				t.Skipf("this cdproto drops %s", tt.needs)
			}
			t.Parallel()
			f := newFixture(t, &chromedp015guard.Options{EvalTimeout: 8 * time.Second})
			ctx, cancel := context.WithTimeout(f.tab, 20*time.Second)
			defer cancel()
			err := tt.call(ctx, f)
			var be *chromedp015guard.BlockedError
			require.ErrorAs(t, err, &be, "%v", err)
			assert.ErrorIs(t, err, chromedp015guard.ErrDownload)
			assert.Equal(t, fileURL, be.URL)
			var title string
			require.NoError(t, chromedp.Run(ctx, chromedp015guard.Evaluate(f.w, `() => document.title`, &title)), "the old document answers")
			assert.Equal(t, "ok", title)
		})
	}
}

// TestGuardCutShortIsNoSuccess: a guarded action that answers nil once its
// context ended (as rod's wait helpers do) answers the timeout, with what
// the tab was doing, or the watcher's Close, never a success.
func TestGuardCutShortIsNoSuccess(t *testing.T) {
	t.Parallel()
	quiet := chromedp.ActionFunc(func(ctx context.Context) error {
		<-ctx.Done()
		return nil
	})
	t.Run("eval timeout on a busy page", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, &chromedp015guard.Options{EvalTimeout: 2 * time.Second, TerminateOnTimeout: true})
		f.runJS(t, `while (true) {}`)
		ctx, cancel := context.WithTimeout(f.tab, 20*time.Second)
		defer cancel()
		err := chromedp.Run(ctx, chromedp015guard.Guard(f.w, quiet))
		var te *chromedp015guard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, chromedp015guard.TimeoutBusyScript, te.Cause, te.Error())
	})
	t.Run("watcher closed", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		ctx, cancel := context.WithTimeout(f.tab, 20*time.Second)
		defer cancel()
		time.AfterFunc(100*time.Millisecond, func() { _ = f.w.Close() })
		err := chromedp.Run(ctx, chromedp015guard.Guard(f.w, quiet))
		assert.ErrorIs(t, err, chromedp015guard.ErrWatcherClosed)
	})
}

// knows reports whether the cdproto in use decodes the event method: a
// version older than the event drops it, and the watcher never sees it.
func knows(method string) bool {
	_, err := cdproto.UnmarshalMessage(&cdproto.Message{Method: cdproto.MethodType(method), Params: []byte("{}")})
	return err == nil
}

// TestGuardedTasksNameTheStep holds that a guarded chromedp.Tasks that runs
// out of time names the task that was running, by its place and type.
func TestGuardedTasksNameTheStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t, &chromedp015guard.Options{EvalTimeout: 3 * time.Second})
	// No deadline of the context's: the eval timeout bounds the call.
	ctx := testctx.Within(t, f.tab, 20*time.Second)
	err := chromedp.Run(ctx, chromedp015guard.Guard(f.w, chromedp.Tasks{
		chromedp.Navigate(f.srv.URL),
		chromedp.WaitReady("body"),
		chromedp.WaitVisible("#never"),
	}))
	var te *chromedp015guard.TimeoutError
	require.ErrorAs(t, err, &te, "%v", err)
	assert.Equal(t, "action 3 of 3, *chromedp.Selector", te.Step)
	assert.Contains(t, te.Error(), "guarded chromedp action (action 3 of 3, *chromedp.Selector) timed out after 3s")
}
