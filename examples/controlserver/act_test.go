package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// actFixtures serves "/shop" (a button that counts its clicks, a link to
// "/next", a field and a button that opens an alert), "/next" and
// "/covered" (a button under a cookie banner) from 127.0.0.1.
func actFixtures(t *testing.T) *httptest.Server {
	t.Helper()
	html := map[string]string{
		"/shop": `<title>shop</title><h1>Shop</h1>
			<button id="buy" onclick="window.clicks = (window.clicks || 0) + 1">Buy</button>
			<a id="next" href="/next">Next page</a>
			<input id="name" aria-label="Name" value="before">
			<button id="warn" onclick="alert('sure?')">Warn</button>`,
		"/next": `<title>next</title><a href="/shop">Back</a>`,
		"/covered": `<style>#cookie-banner{position:fixed;inset:0;z-index:10;background:#eee}</style>
			<button id="t">Target</button><div id="cookie-banner">We use cookies</div>`,
	}
	mux := http.NewServeMux()
	for path, body := range html {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// refOf returns the ref of the element whose line holds roleName, such
// as `button "Buy"`.
func refOf(t *testing.T, snap SnapshotResponse, roleName string) string {
	t.Helper()
	for _, e := range snap.Elements {
		if strings.HasPrefix(e.Line, e.Ref+" "+roleName) {
			return e.Ref
		}
	}
	t.Fatalf("no %s in %+v", roleName, snap.Elements)
	return ""
}

// clicks is the number of clicks the button of "/shop" received.
func clicks(t *testing.T, s *Server, tab string) any {
	t.Helper()
	w, err := s.tab(testbrowser.Context(t, 10*time.Second), tab)
	require.NoError(t, err)
	res, err := w.Eval(testbrowser.Context(t, 10*time.Second), "() => window.clicks")
	require.NoError(t, err)
	return res.Value.Val()
}

func TestActClickBySelectorAndRef(t *testing.T) {
	s, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, actFixtures(t).URL+"/shop")

	byCSS, err := c.Act(ctx, ActRequest{Tab: id, Kind: "click", Selector: "#buy"})
	require.NoError(t, err)
	assert.Equal(t, `click on <button id="buy">`, byCSS.Done)
	assert.Equal(t, `<button id="buy">`, byCSS.Element)

	snap, err := c.Snapshot(ctx, id, SnapshotQuery{})
	require.NoError(t, err)
	assert.Equal(t, snap.Total, snap.Shown)
	assert.Zero(t, snap.NextOffset)
	assert.Empty(t, snap.Notice)
	byRef, err := c.Act(ctx, ActRequest{Tab: id, Kind: "click", Ref: refOf(t, snap, `button "Buy"`)})
	require.NoError(t, err)
	assert.Equal(t, byCSS, byRef, "the same button by ref as by selector")
	assert.Equal(t, float64(2), clicks(t, s, id), "each click reached the button once")

	warned, err := c.Act(ctx, ActRequest{Tab: id, Kind: "click", Selector: "#warn"})
	require.NoError(t, err)
	require.NotNil(t, warned.Dialog, warned.Done)
	assert.Equal(t, ActDialog{Type: "alert", Message: "sure?"}, *warned.Dialog)
	assert.Contains(t, warned.Next, "POST /browser/dialog")
	_, err = c.Dialog(ctx, id, true, "")
	require.NoError(t, err)

	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "click", Selector: "#nothing"})
	requireAPIError(t, err, http.StatusNotFound, `no element matches "#nothing"`)
	requireAPIError(t, err, http.StatusNotFound, "GET /browser/snapshot lists what the page holds")
	assert.NotContains(t, err.Error(), "Watcher.")
	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "tap", Selector: "#buy"})
	requireAPIError(t, err, http.StatusBadRequest, `kind "tap": pass one of click, double-click, right-click, hover, fill, press, select, scroll`)
	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "click"})
	requireAPIError(t, err, http.StatusBadRequest, "missing ref or selector")
}

func TestActFill(t *testing.T) {
	s, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, actFixtures(t).URL+"/shop")
	snap, err := c.Snapshot(ctx, id, SnapshotQuery{})
	require.NoError(t, err)
	filled, err := c.Act(ctx, ActRequest{Tab: id, Kind: "fill", Ref: refOf(t, snap, `textbox "Name"`), Text: "héllo 日本"})
	require.NoError(t, err)
	assert.Equal(t, "héllo 日本", filled.Value)
	w, err := s.tab(ctx, id)
	require.NoError(t, err)
	res, err := w.Eval(ctx, "() => document.getElementById('name').value")
	require.NoError(t, err)
	assert.Equal(t, "héllo 日本", res.Value.Str())
}

// A button under a cookie banner is not clicked: a 409 whose first words
// are what covers it.
func TestActCovered(t *testing.T) {
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, actFixtures(t).URL+"/covered")
	_, err := c.Act(ctx, ActRequest{Tab: id, Kind: "click", Selector: "#t", NoWait: true})
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusConflict, ae.Status)
	assert.True(t, strings.HasPrefix(ae.Message, `covered by <div id="cookie-banner">`), ae.Message)
	assert.Contains(t, ae.Message, `: click on <button id="t"> not done`)
	assert.Contains(t, ae.Message, "dismiss what covers it first")
}

// A click on a link by ref answers the navigation; the old page's refs
// are stale after it, a 409 that names GET /browser/snapshot.
func TestActStaleRefAfterNavigation(t *testing.T) {
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	fx := actFixtures(t)
	id := open(t, c, fx.URL+"/shop")
	snap, err := c.Snapshot(ctx, id, SnapshotQuery{})
	require.NoError(t, err)
	buy := refOf(t, snap, `button "Buy"`)

	went, err := c.Act(ctx, ActRequest{Tab: id, Kind: "click", Ref: refOf(t, snap, `link "Next page"`)})
	require.NoError(t, err)
	require.NotNil(t, went.Navigation, went.Done)
	assert.Equal(t, fx.URL+"/next", went.Navigation.URL)
	assert.Contains(t, []string{"pending", "committed"}, went.Navigation.State)
	assert.Contains(t, went.Next, "GET /browser/snapshot")
	eventually(t, "the next page", func() bool {
		snap, err := c.Snapshot(ctx, id, SnapshotQuery{})
		return err == nil && snap.URL == fx.URL+"/next" && len(snap.Elements) == 1
	})

	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "click", Ref: buy})
	requireAPIError(t, err, http.StatusConflict, "ref "+buy+" is of an earlier page")
	requireAPIError(t, err, http.StatusConflict, "take fresh refs with GET /browser/snapshot")
	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "click", Ref: "f1e1"})
	requireAPIError(t, err, http.StatusConflict, "stale ref: f1e1")
	assert.NotContains(t, err.Error(), "Watcher.")
}

// A page of more elements than the cap is read in windows whose notice
// says how to read on, and which join to every element once.
func TestSnapshotNotice(t *testing.T) {
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fixtures(t).URL) // a button and 600 links
	refs := map[string]bool{}
	q := SnapshotQuery{}
	for windows := 1; ; windows++ {
		snap, err := c.Snapshot(ctx, id, q)
		require.NoError(t, err)
		for _, e := range snap.Elements {
			refs[e.Ref] = true
		}
		if snap.NextOffset == 0 {
			assert.Equal(t, 2, windows)
			assert.Empty(t, snap.Notice)
			break
		}
		assert.Equal(t, 500, snap.Shown)
		assert.Equal(t, fmt.Sprintf("showing elements 1-500 of 601: read on with GET /browser/snapshot?offset=500&tab=%s", id), snap.Notice)
		q.Offset = snap.NextOffset
	}
	assert.Len(t, refs, 601, "every element once")
}
