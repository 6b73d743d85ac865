package chromedpguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestNavigationPending: a click on a link to a server that never answers
// starts a navigation that never commits, and Chrome holds the page's
// calls meanwhile. An eval times out saying so, naming the URL; Recover
// stops the load, and the next eval answers on the page the link was on.
// Recover with no timeout before it asks the page, and stops the load too.
func TestNavigationPending(t *testing.T) {
	t.Parallel()
	srv := faultrows.NavPendingServer(t)
	limit := faultrows.DefaultTimeout
	w := watch(t, newTab(t, sharedBrowser), &chromedpguard.Options{EvalTimeout: limit})
	ctx := within(t, 30*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL))
	never := srv.URL + faultrows.NeverPath

	pending := func(what string) {
		t.Helper()
		_, err := w.Eval(ctx, faultrows.NavPendingClick)
		require.NoError(t, err, "click the link (%s)", what)
		_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.URL == never })
		require.NoError(t, err, "the navigation starts (%s)", what)
	}
	title := func(what string) {
		t.Helper()
		res, err := w.Eval(ctx, `() => document.title`)
		require.NoError(t, err, "the next eval answers (%s)", what)
		assert.JSONEq(t, `"`+faultrows.NavPendingTitle+`"`, string(res.Value), what)
	}

	pending("first")
	_, err := w.Eval(ctx, `() => document.title`)
	faultrows.CheckNavPending(t, err, never, limit)
	r, err := w.Recover(ctx)
	faultrows.CheckNavStopped(t, r, err, never)
	title("after the timeout")
	assert.Equal(t, srv.URL+"/", w.State().URL, "the tab is back on the page the link was on")

	pending("again")
	r, err = w.Recover(ctx)
	faultrows.CheckNavStopped(t, r, err, never)
	title("after Recover asked")
}
