package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestServerBadInput(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	id := open(t, c, fx.URL)
	ctx := testbrowser.Context(t, 30*time.Second)

	_, err := c.DOM(ctx, "no-such-tab", 0)
	requireAPIError(t, err, http.StatusBadRequest, `unknown tab "no-such-tab": list tabs with GET /browser/tabs or open one with POST /browser/tabs`)
	_, err = c.Clickables(ctx, "")
	requireAPIError(t, err, http.StatusBadRequest, "missing tab")
	_, err = c.DOM(ctx, id, -5)
	requireAPIError(t, err, http.StatusBadRequest, `bad max_bytes "-5": pass a positive byte count`)
	_, err = c.Open(ctx, "")
	requireAPIError(t, err, http.StatusBadRequest, "missing url")

	resp, err := c.HTTP.Get(c.BaseURL + "/browser/dom?tab=" + id + "&max_bytes=lots")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp, err = c.HTTP.Post(c.BaseURL+"/browser/scroll", "application/json", http.NoBody)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestServerCrashedTab(t *testing.T) {
	fx := fixtures(t)
	s, c := setup(t, 5*time.Second)
	id := open(t, c, fx.URL)
	crash(t, s, id)
	ctx := testbrowser.Context(t, 30*time.Second)

	const want = "tab renderer crashed (reason: crashed): POST /browser/reload"
	_, err := c.DOM(ctx, id, 0)
	requireAPIError(t, err, http.StatusInternalServerError, want)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, want, ae.Message, "the body must be the reason itself")
	_, err = c.Clickables(ctx, id)
	requireAPIError(t, err, http.StatusInternalServerError, want)
	_, err = c.Scroll(ctx, id, 0, 100)
	requireAPIError(t, err, http.StatusInternalServerError, want)
	_, err = c.Cursor(ctx, id, 10, 10)
	requireAPIError(t, err, http.StatusInternalServerError, want)
}

func TestServerEvalTimeout(t *testing.T) {
	fx := fixtures(t)
	_, c := serveConfig(t, &ServerConfig{Watch: &tabguard.Options{EvalTimeout: 2 * time.Second}, LoadTimeout: 10 * time.Second, Metrics: true}, "")
	id := open(t, c, fx.URL+"/busy")
	time.Sleep(300 * time.Millisecond) // the page's loop starts 50 ms after it loads

	_, err := c.DOM(testbrowser.Context(t, 30*time.Second), id, 0)
	// What the timeout says the tab was doing depends on what the probes
	// find in time; on an idle machine it is "busy running script on
	// committed page URL: script terminated, the tab answers again".
	requireAPIError(t, err, http.StatusGatewayTimeout, "DOM read timed out after 2s (")
	assert.NotContains(t, err.Error(), "Watcher.", "the server's callers have endpoints, not Go calls")
	assert.NotContains(t, err.Error(), "Options.")
	// The server stops a runaway script, so the tab answers again.
	eventually(t, "the tab to answer", func() bool {
		_, err := c.DOM(testbrowser.Context(t, 30*time.Second), id, 0)
		return err == nil
	})
	// /metrics counts the timeout, by call and by what the tab was doing.
	n, ok := value(scrape(t, c), "tabguard_call_timeouts_total", map[string]string{"tabguard_call": "DOM"})
	require.True(t, ok, "no tabguard_call_timeouts_total series for DOM")
	assert.GreaterOrEqual(t, n, 1.0)
}

func TestServerDeadURL(t *testing.T) {
	_, c := setup(t, 5*time.Second)
	url := testbrowser.DeadURL(t)
	ctx := testbrowser.Context(t, 30*time.Second)

	id, err := c.Open(ctx, url)
	want := "tab has no document: net::ERR_CONNECTION_REFUSED loading " + url + ": POST /browser/navigate, or POST /browser/reload to try the same URL"
	requireAPIError(t, err, http.StatusInternalServerError, "load "+url+": "+want)
	require.NotEmpty(t, id, "a failed open still names its tab")

	// At once: the open returned the failure, so the watcher knows it.
	_, err = c.DOM(ctx, id, 0)
	requireAPIError(t, err, http.StatusInternalServerError, want)
}

func TestServerLoadTimeout(t *testing.T) {
	fx := fixtures(t)
	_, c := setupLoad(t, 5*time.Second, time.Second)
	url := fx.URL + "/stall"

	id, err := c.Open(testbrowser.Context(t, 30*time.Second), url)
	// Whether the second ran out in the wait for the load event, or in
	// the navigation itself on a busy machine, the answer is a 504 that
	// says which URL did not load within the load timeout.
	requireAPIError(t, err, http.StatusGatewayTimeout, "load "+url+": not loaded within 1s: ")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.True(t, strings.HasPrefix(ae.Message, "load "+url+": not loaded within 1s: "), "message %q", ae.Message)
	// On a busy machine the attach itself may outlast the second; the tab
	// is closed then, and no ID comes back. A tab that was attached stays
	// open, listed, for the caller to read or close.
	if id != "" {
		_, ok := listed(t, c, id)
		assert.True(t, ok, "the tab that did not load is listed")
	}
}

// Each refusal names the endpoint that ends it, and right after that
// endpoint answers, the next call works: no wait in between.
func TestErrorsNameTheEndpoint(t *testing.T) {
	fx := fixtures(t)
	s, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 60*time.Second)
	id := open(t, c, fx.URL+"/hello")
	works := func(after string) {
		t.Helper()
		d, err := c.DOM(ctx, id, 0)
		require.NoError(t, err, "the call right after %s", after)
		assert.NotEmpty(t, d.HTML)
	}
	refused := func(want string) {
		t.Helper()
		_, err := c.DOM(ctx, id, 0)
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, http.StatusInternalServerError, ae.Status)
		assert.Equal(t, want, ae.Message)
		ti, _ := listed(t, c, id)
		assert.Equal(t, want, ti.Problem, "GET /browser/tabs says it too, asking no page")
	}

	crash(t, s, id)
	refused("tab renderer crashed (reason: crashed): POST /browser/reload")
	_, err := c.Reload(ctx, id)
	require.NoError(t, err)
	works("POST /browser/reload")

	dead := testbrowser.DeadURL(t)
	_, err = c.Navigate(ctx, id, dead)
	want := "tab has no document: net::ERR_CONNECTION_REFUSED loading " + dead + ": POST /browser/navigate, or POST /browser/reload to try the same URL"
	requireAPIError(t, err, http.StatusInternalServerError, want)
	refused(want)
	_, err = c.Navigate(ctx, id, fx.URL+"/hello")
	require.NoError(t, err)
	works("POST /browser/navigate")

	_, err = c.Navigate(ctx, id, fx.URL+"/alert")
	require.NoError(t, err)
	eventually(t, "the alert", func() bool { ti, _ := listed(t, c, id); return ti.Problem != "" })
	refused(`tab has a JavaScript dialog open: alert "stop": POST /browser/dialog`)
	_, err = c.Dialog(ctx, id, true, "")
	require.NoError(t, err)
	works("POST /browser/dialog")

	// Closed by someone else: only a new tab helps.
	closeCtx := testbrowser.Context(t, 5*time.Second)
	_, err = proto.TargetCloseTarget{TargetID: proto.TargetTargetID(id)}.Call(testbrowser.Shared(t).Context(closeCtx))
	require.NoError(t, err)
	eventually(t, "the close", func() bool { _, found := listed(t, c, id); return !found })
	_, err = c.DOM(ctx, id, 0)
	requireAPIError(t, err, http.StatusInternalServerError, "tab is closed: open a new tab with POST /browser/tabs")
}
