package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// navPendingFaults are the matrix's rows of navigations the page starts
// that never commit, on chromedp.
func navPendingFaults() map[string]cdpFault {
	return map[string]cdpFault{
		faultrows.NavPendingRowName: {
			fault: func(t *testing.T, f *fixture) outcome {
				f.waitLoaded(t)
				clickNever(t, within(t, 20*time.Second), f.w, "/stall", f.srv.URL+"/stall")
				return f.eval(t, `() => 1`)
			},
			recover: func(t *testing.T, f *fixture) *chromedpguard.Watcher {
				r, err := f.w.Recover(within(t, 20*time.Second))
				faultrows.CheckNavStopped(t, r, err, f.srv.URL+"/stall")
				return f.w
			},
		},
	}
}

// clickNever clicks a link to path, which never answers, on w's page and
// returns once w knows the navigation to url has started.
func clickNever(t *testing.T, ctx context.Context, w *chromedpguard.Watcher, path, url string) {
	t.Helper()
	_, err := w.Eval(ctx, faultrows.NavPendingClick, path)
	require.NoError(t, err, "click the link")
	_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.URL == url })
	require.NoError(t, err, "the navigation starts")
}

// TestNavigationPendingRecoverAsks: Recover with no timeout before it asks
// the page, finds it held by the navigation a click started, and stops the
// load; the next eval answers on the page the link was on, every time.
func TestNavigationPendingRecoverAsks(t *testing.T) {
	t.Parallel()
	srv := faultrows.NavPendingServer(t)
	w := watch(t, newTab(t, sharedBrowser), &chromedpguard.Options{EvalTimeout: faultrows.DefaultTimeout})
	ctx := within(t, 30*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL))
	_, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err, "the page loads")
	never := srv.URL + faultrows.NeverPath
	for i := range 2 {
		clickNever(t, ctx, w, faultrows.NeverPath, never)
		r, err := w.Recover(ctx)
		faultrows.CheckNavStopped(t, r, err, never)
		res, err := w.Eval(ctx, `() => document.title`)
		require.NoError(t, err, "cycle %d: the next eval answers", i)
		assert.JSONEq(t, `"`+faultrows.NavPendingTitle+`"`, string(res.Value), "cycle %d", i)
		assert.Equal(t, srv.URL+"/", w.State().URL, "cycle %d: the tab is back on the page the link was on", i)
	}
}
