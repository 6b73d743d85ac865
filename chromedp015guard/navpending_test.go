package chromedp015guard_test

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestNavigationPending: a click on a link to a server that never answers
// starts a navigation that never commits, and Chrome holds the page's
// calls meanwhile. An eval times out saying so, naming the URL; Recover
// stops the load, and the next eval answers on the page the link was on.
// Recover with no timeout before it asks the page, and stops the load too.
// The watcher learns that a navigation started from
// Page.frameStartedNavigating, which the cdproto of chromedp v0.13 and
// later decodes, and chromedp v0.9.5's drops: there, the tab does not know
// the navigation is pending, and the row does not run.
func TestNavigationPending(t *testing.T) {
	t.Parallel()
	if _, err := cdproto.UnmarshalMessage(&cdproto.Message{Method: "Page.frameStartedNavigating", Params: []byte("{}")}); err != nil {
		t.Skip("this chromedp's cdproto drops Page.frameStartedNavigating, the event that says a navigation started: " + err.Error())
	}
	srv := faultrows.NavPendingServer(t)
	tab, cancel := chromedp.NewContext(sharedBrowser)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Run(tab), "open a tab")
	w, err := chromedp015guard.Watch(tab, &chromedp015guard.Options{EvalTimeout: faultrows.DefaultTimeout})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	ctx := within(t, 30*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL))
	_, err = w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Loaded })
	require.NoError(t, err, "the page loads")
	never := srv.URL + faultrows.NeverPath

	pending := func(what string) {
		t.Helper()
		_, err := w.Eval(ctx, faultrows.NavPendingClick, faultrows.NeverPath)
		require.NoError(t, err, "click the link (%s)", what)
		_, err = w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.URL == never })
		require.NoError(t, err, "the navigation starts (%s)", what)
	}
	title := func(what string) {
		t.Helper()
		res, err := w.Eval(ctx, `() => document.title`)
		require.NoError(t, err, "the next eval answers (%s)", what)
		assert.JSONEq(t, `"`+faultrows.NavPendingTitle+`"`, string(res.Value), what)
		assert.Equal(t, srv.URL+"/", w.State().URL, "the tab is back on the page the link was on (%s)", what)
	}

	pending("first")
	_, err = w.Eval(ctx, `() => document.title`)
	faultrows.CheckNavPending(t, err, never)
	r, err := w.Recover(ctx)
	faultrows.CheckNavStopped(t, r, err, never)
	title("after the timeout")

	pending("again")
	r, err = w.Recover(ctx)
	faultrows.CheckNavStopped(t, r, err, never)
	title("after Recover asked")
}
