package tabguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestNavigationPending: a click on a link to a server that never answers
// starts a navigation that never commits, and Chrome holds the page's
// calls meanwhile. An eval times out saying so, naming the URL; Recover
// stops the load, and the next eval answers on the page the link was on.
// Recover with no timeout before it asks the page, and stops the load too.
func TestNavigationPending(t *testing.T) {
	t.Parallel()
	srv := faultrows.NavPendingServer(t)
	page := loadedPage(t, srv)
	limit := faultrows.DefaultTimeout
	w := watch(t, page, &tabguard.Options{EvalTimeout: limit})
	ctx := testbrowser.Context(t, 30*time.Second)
	never := srv.URL + faultrows.NeverPath

	_, err := w.Eval(ctx, faultrows.NavPendingClick)
	require.NoError(t, err, "click the link")
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.URL == never })
	require.NoError(t, err, "the navigation starts")

	_, err = w.Eval(ctx, `() => document.title`)
	faultrows.CheckNavPending(t, err, never, limit)

	r, err := w.Recover(ctx)
	faultrows.CheckNavStopped(t, r, err, never)
	res, err := w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the next eval answers")
	assert.Equal(t, faultrows.NavPendingTitle, res.Value.Str())
	assert.Equal(t, srv.URL+"/", w.State().URL, "the tab is back on the page the link was on")

	_, err = w.Eval(ctx, faultrows.NavPendingClick)
	require.NoError(t, err, "click the link again")
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.URL == never })
	require.NoError(t, err, "the navigation starts again")
	r, err = w.Recover(ctx)
	faultrows.CheckNavStopped(t, r, err, never)
	res, err = w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the next eval answers")
	assert.Equal(t, faultrows.NavPendingTitle, res.Value.Str())
}
