package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// One test per endpoint, each through the Client and Guard.

func TestOpen(t *testing.T) {
	fx := fixtures(t) // first, so it closes after the server's tabs
	_, c := setup(t, 5*time.Second)
	id := open(t, c, fx.URL+"/hello")

	assert.Contains(t, targets(t), id, "the browser has the tab")
	ti, found := listed(t, c, id)
	require.True(t, found)
	// The title is what the browser's target events last said: measured on
	// Chromium 156, they do not report a <title> the page sets as it loads,
	// so the list may show the URL where Target.getTargetInfo says "hello".
	assert.NotEmpty(t, ti.Title)
	assert.Equal(t, TabInfo{Tab: id, URL: fx.URL + "/hello", Title: ti.Title, Watched: true}, ti)
	d, err := c.DOM(testbrowser.Context(t, 10*time.Second), id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<p>héllo</p>", "Open returns once the page has loaded")
}

func TestTabs(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/hello")
	dead := testbrowser.DeadURL(t)
	failed, err := c.Open(ctx, dead)
	require.Error(t, err)

	// A popup the page opens is listed with its opener, unwatched.
	_, err = proto.RuntimeEvaluate{Expression: `window.open("/hello?popup")`, UserGesture: true}.Call(rodPage(t, id).Context(ctx))
	require.NoError(t, err)
	var popup TabInfo
	eventually(t, "the popup to be listed", func() bool {
		tabs, err := c.Tabs(ctx)
		require.NoError(t, err)
		for _, ti := range tabs {
			if ti.Opener == id {
				popup = ti
				return ti.URL != ""
			}
		}
		return false
	})
	assert.False(t, popup.Watched)
	assert.Equal(t, fx.URL+"/hello?popup", popup.URL)

	// The failed load is listed with its problem and the endpoint that
	// fixes it, asking no page.
	ti, found := listed(t, c, failed)
	require.True(t, found)
	assert.Equal(t, "tab has no document: net::ERR_CONNECTION_REFUSED loading "+dead+": POST /browser/navigate, or POST /browser/reload to try the same URL", ti.Problem)
	ti, _ = listed(t, c, id)
	assert.Empty(t, ti.Problem)

	// Any listed tab can be called: the server takes the popup over.
	d, err := c.DOM(ctx, popup.Tab, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<p>héllo</p>")
	ti, _ = listed(t, c, popup.Tab)
	assert.True(t, ti.Watched)
	require.NoError(t, c.CloseTab(ctx, popup.Tab))
}

func TestNavigate(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/hello")

	res, err := c.Navigate(ctx, id, fx.URL+"/?next")
	require.NoError(t, err)
	assert.Equal(t, TabResponse{Tab: id, URL: fx.URL + "/?next"}, res)
	cl, err := c.Clickables(ctx, id)
	require.NoError(t, err, "Navigate returns once the page has loaded")
	assert.Equal(t, 601, cl.Total)

	_, err = c.Navigate(ctx, id, "")
	requireAPIError(t, err, http.StatusBadRequest, "missing url")
	_, err = c.Navigate(ctx, "no-such-tab", fx.URL)
	requireAPIError(t, err, http.StatusBadRequest, `unknown tab "no-such-tab"`)
}

func TestReload(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/count")

	res, err := c.Reload(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, TabResponse{Tab: id, URL: fx.URL + "/count"}, res)
	d, err := c.DOM(ctx, id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<p>load 2</p>")

	_, err = c.Reload(ctx, "")
	requireAPIError(t, err, http.StatusBadRequest, "missing tab")
}

func TestClose(t *testing.T) {
	fx := fixtures(t)
	s, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/hello")
	crashed := open(t, c, fx.URL+"/hello")
	crash(t, s, crashed)

	for _, tab := range []string{id, crashed} { // whatever its state
		require.NoError(t, c.CloseTab(ctx, tab))
		_, found := listed(t, c, tab)
		assert.False(t, found, "a closed tab leaves the list")
		assert.NotContains(t, targets(t), tab, "the browser has closed it")
		_, err := c.DOM(ctx, tab, 0)
		requireAPIError(t, err, http.StatusBadRequest, "unknown tab")
	}
	err := c.CloseTab(ctx, id)
	requireAPIError(t, err, http.StatusBadRequest, "unknown tab")
}

func TestDialog(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/prompt")
	eventually(t, "the prompt", func() bool { ti, _ := listed(t, c, id); return ti.Problem != "" })
	ti, _ := listed(t, c, id)
	assert.Equal(t, `tab has a JavaScript dialog open: prompt "your name?": POST /browser/dialog`, ti.Problem)

	res, err := c.Dialog(ctx, id, true, "héllo")
	require.NoError(t, err)
	assert.Equal(t, TabResponse{Tab: id, URL: fx.URL + "/prompt"}, res)
	d, err := c.DOM(ctx, id, 0)
	require.NoError(t, err, "the next call works at once")
	assert.Contains(t, d.HTML, "<title>héllo</title>", "the prompt got the text")

	_, err = c.Dialog(ctx, id, true, "")
	requireAPIError(t, err, http.StatusConflict, "no JavaScript dialog is open: nothing to handle")

	// Dismissed, a prompt answers null.
	_, err = c.Navigate(ctx, id, fx.URL+"/prompt?again")
	require.NoError(t, err)
	eventually(t, "the second prompt", func() bool { ti, _ := listed(t, c, id); return ti.Problem != "" })
	_, err = c.Dialog(ctx, id, false, "ignored")
	require.NoError(t, err)
	d, err = c.DOM(ctx, id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<title>null</title>")
}

func TestDOM(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	id := open(t, c, fx.URL)

	d, err := c.DOM(testbrowser.Context(t, 10*time.Second), id, 300)
	require.NoError(t, err)
	assert.True(t, d.Truncated)
	assert.Greater(t, d.Size, 20_000)
	assert.Contains(t, d.HTML, "<button")
	assert.Contains(t, d.HTML, "<!-- truncated: showing ")
}

func TestClickables(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	id := open(t, c, fx.URL)

	cl, err := c.Clickables(testbrowser.Context(t, 10*time.Second), id)
	require.NoError(t, err)
	assert.Len(t, cl.Items, MaxClickables)
	assert.Equal(t, 601, cl.Total)
	assert.True(t, cl.Truncated)
	assert.Equal(t, Clickable{Ref: cl.Items[0].Ref, Tag: "button", Text: "Buy", W: 200, H: 50}, cl.Items[0])
	assert.Equal(t, Clickable{Ref: cl.Items[1].Ref, Tag: "link", Text: "item 0", Y: 50, W: cl.Items[1].W, H: 20}, cl.Items[1])
}

func TestScroll(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 10*time.Second)
	id := open(t, c, fx.URL)

	sc, err := c.Scroll(ctx, id, 0, 400)
	require.NoError(t, err)
	assert.Equal(t, ScrollResponse{X: 0, Y: 400}, sc)
	sc, err = c.Scroll(ctx, id, 0, -400)
	require.NoError(t, err)
	assert.Equal(t, ScrollResponse{X: 0, Y: 0}, sc)
}

func TestCursor(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	id := open(t, c, fx.URL)

	cur, err := c.Cursor(testbrowser.Context(t, 10*time.Second), id, 100, 25)
	require.NoError(t, err)
	assert.Equal(t, CursorResponse{Tag: "button", Text: "Buy"}, cur)
}
