package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// frameFixtures serves pages with iframes from 127.0.0.1: "/frames" holds
// one of the same site (#a) and one of another (#b: localhost on the same
// port), "/frames/dead" one of dead, a URL nothing answers, and
// "/frames/lazy" one far below the fold, loading=lazy. "/inner?n=N" is an
// iframe's page, titled inner-N, with a link and room to scroll.
func frameFixtures(t *testing.T, dead string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>outer</title><p>outer</p>`+body)
	}
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>inner-%s</title><body style="margin:0"><a href="/next" style="display:block;height:20px">héllo %s</a>`+
			`<div style="height:3000px"></div></body>`, n, n)
	})
	mux.HandleFunc("/frames", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host)
		page(w, `<iframe id=a src="/inner?n=a"></iframe><iframe id=b src="http://localhost:`+port+`/inner?n=b"></iframe>`)
	})
	mux.HandleFunc("/frames/dead", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<iframe id=d src="`+dead+`"></iframe>`)
	})
	mux.HandleFunc("/frames/lazy", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<div style="height:30000px"></div><iframe id=l loading=lazy src="/inner?n=lazy"></iframe>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// frameAt returns the iframe at url of the tab's list.
func frameAt(t *testing.T, c *Client, tab, url string) FrameInfo {
	t.Helper()
	fs, err := c.Frames(testbrowser.Context(t, 10*time.Second), tab)
	require.NoError(t, err)
	for _, f := range fs {
		if f.URL == url {
			return f
		}
	}
	t.Fatalf("no frame at %s in %+v", url, fs)
	return FrameInfo{}
}

func TestFrames(t *testing.T) {
	fx := frameFixtures(t, testbrowser.DeadURL(t))
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	port := fx.URL[strings.LastIndex(fx.URL, ":")+1:]
	id := open(t, c, fx.URL+"/frames")

	fs, err := c.Frames(ctx, id)
	require.NoError(t, err)
	require.Len(t, fs, 2)
	a, b := frameAt(t, c, id, fx.URL+"/inner?n=a"), frameAt(t, c, id, "http://localhost:"+port+"/inner?n=b")
	assert.Equal(t, FrameInfo{Frame: a.Frame, Parent: id, URL: fx.URL + "/inner?n=a"}, a, "an iframe of the page has the tab as its parent")
	assert.Equal(t, FrameInfo{Frame: b.Frame, Parent: id, URL: "http://localhost:" + port + "/inner?n=b"}, b)

	d, err := c.FrameDOM(ctx, id, b.Frame, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "héllo b</a>")
	assert.NotContains(t, d.HTML, "outer")
	assert.False(t, d.Truncated)
	assert.Equal(t, len(d.HTML), d.Size)

	whole, err := c.FrameDOM(ctx, id, a.Frame, 0)
	require.NoError(t, err)
	d, err = c.FrameDOM(ctx, id, a.Frame, 40)
	require.NoError(t, err)
	assert.True(t, d.Truncated)
	assert.Equal(t, whole.Size, d.Size, "the size of the whole frame, non-ASCII as it is")
	assert.Equal(t, whole.HTML[:40]+"\n"+tabguard.DefaultNotice(40, whole.Size, 40), d.HTML, "cut as the page's DOM is")

	cl, err := c.FrameClickables(ctx, id, a.Frame)
	require.NoError(t, err)
	require.Len(t, cl.Items, 1)
	assert.Equal(t, ClickablesResponse{Items: []Clickable{{Ref: cl.Items[0].Ref, Tag: "link", Text: "héllo a", W: cl.Items[0].W, H: 20}}, Total: 1}, cl)
	cl, err = c.Clickables(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 2, cl.Total, "the page has nothing of its own to click, its iframes a link each")

	sc, err := c.FrameScroll(ctx, id, b.Frame, 0, 100)
	require.NoError(t, err)
	assert.Equal(t, ScrollResponse{X: 0, Y: 100}, sc, "the iframe of another site scrolls")
	sc, err = c.Scroll(ctx, id, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, ScrollResponse{X: 0, Y: 0}, sc, "the page did not")
}

// A frame's refusals name the server's endpoints: GET /browser/frames for
// a frame the tab does not have, POST /browser/reload for one whose page
// did not load.
func TestFrameRefusals(t *testing.T) {
	dead := testbrowser.DeadURL(t)
	fx := frameFixtures(t, dead)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/frames/dead")

	gone := "frame is detached: no such frame in the tab (frame NOSUCH): GET /browser/frames"
	_, err := c.FrameDOM(ctx, id, "NOSUCH", 0)
	requireAPIError(t, err, http.StatusInternalServerError, gone)
	_, err = c.FrameClickables(ctx, id, "NOSUCH")
	requireAPIError(t, err, http.StatusInternalServerError, gone)
	_, err = c.FrameScroll(ctx, id, "NOSUCH", 0, 100)
	requireAPIError(t, err, http.StatusInternalServerError, gone)

	fs, err := c.Frames(ctx, id)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	want := "frame has no document: net::ERR_CONNECTION_REFUSED loading " + dead + ": POST /browser/reload"
	assert.Equal(t, want, fs[0].Problem, "the list says why, asking no page")
	assert.False(t, fs[0].Loading)
	_, err = c.FrameDOM(ctx, id, fs[0].Frame, 0)
	requireAPIError(t, err, http.StatusInternalServerError, want)
	_, err = c.FrameClickables(ctx, id, fs[0].Frame)
	requireAPIError(t, err, http.StatusInternalServerError, want)
	d, err := c.DOM(ctx, id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<p>outer</p>", "the tab lives on")

	_, err = c.FrameDOM(ctx, id, fs[0].Frame, 3)
	requireAPIError(t, err, http.StatusBadRequest, `bad max_bytes "3": pass a positive byte count (4 or more in a frame)`)
}

// A frame that never loads its page is waited for to the deadline, and
// the timeout names the endpoints that help.
func TestFrameNeverLoaded(t *testing.T) {
	fx := frameFixtures(t, testbrowser.DeadURL(t))
	_, c := setup(t, time.Second)
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/frames/lazy")
	fs, err := c.Frames(ctx, id)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	assert.True(t, fs[0].Loading, "a lazy iframe out of view has no page yet")
	assert.Empty(t, fs[0].Problem)

	_, err = c.FrameClickables(ctx, id, fs[0].Frame)
	requireAPIError(t, err, http.StatusGatewayTimeout, "frame "+fs[0].Frame+" never loaded a document")
	requireAPIError(t, err, http.StatusGatewayTimeout,
		"): scroll the iframe into view with POST /browser/scroll, or GET /browser/frames for the frames that loaded")
	assert.NotContains(t, err.Error(), "Watcher.")
}

// An iframe of another origin holds what the page's own script cannot
// read: the server reads it only at a URL it would open itself, so a page
// cannot hand it one that the policy blocks.
func TestFrameURLPolicy(t *testing.T) {
	fx := frameFixtures(t, testbrowser.DeadURL(t))
	blocked := strings.Join(defaultBlocked, ";") + ";localhost"
	_, c := serve(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: blocked}.policy()}, 10*time.Second, "")
	ctx := testbrowser.Context(t, 30*time.Second)
	port := fx.URL[strings.LastIndex(fx.URL, ":")+1:]
	id := open(t, c, fx.URL+"/frames")
	a, b := frameAt(t, c, id, fx.URL+"/inner?n=a"), frameAt(t, c, id, "http://localhost:"+port+"/inner?n=b")

	want := "frame " + b.Frame + ": URL not allowed: http://localhost:" + port + "/inner?n=b: its origin http://localhost:" + port +
		" is blocked: the server reads no frame at a URL it does not open (see -allow-schemes, -allowed-origins, -blocked-origins)"
	assert.Equal(t, want, b.Problem)
	assert.Empty(t, a.Problem)
	_, err := c.FrameDOM(ctx, id, b.Frame, 0)
	requireAPIError(t, err, http.StatusForbidden, want)
	_, err = c.FrameClickables(ctx, id, b.Frame)
	requireAPIError(t, err, http.StatusForbidden, want)
	_, err = c.FrameScroll(ctx, id, b.Frame, 0, 100)
	requireAPIError(t, err, http.StatusForbidden, want)
	d, err := c.FrameDOM(ctx, id, a.Frame, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "héllo a")

	// A snapshot of the tab lists frame a's link and names frame b left
	// out; an action in frame b, by selector or by ref, is refused.
	snap, err := c.Snapshot(ctx, id, SnapshotQuery{})
	require.NoError(t, err)
	require.Len(t, snap.Elements, 1, "frame a's link, none of frame b's")
	assert.Equal(t, a.Frame, snap.Elements[0].Frame)
	assert.Equal(t, []SkippedFrame{{Frame: b.Frame, URL: "http://localhost:" + port + "/inner?n=b", Reason: "the server reads no frame at a URL it would not open"}}, snap.Skipped)
	_, err = c.Snapshot(ctx, id, SnapshotQuery{Frame: b.Frame})
	requireAPIError(t, err, http.StatusForbidden, want)
	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "click", Selector: "a", Frame: b.Frame})
	requireAPIError(t, err, http.StatusForbidden, want)
	other := "f1e1" // frame b's link: the snapshot numbers the two frames f1 and f2
	if strings.HasPrefix(snap.Elements[0].Ref, "f1e") {
		other = "f2e1"
	}
	_, err = c.Act(ctx, ActRequest{Tab: id, Kind: "click", Ref: other})
	requireAPIError(t, err, http.StatusForbidden, want)
}

// GET /browser/frames is behind the same checks as every route.
func TestFramesGuarded(t *testing.T) {
	fx := frameFixtures(t, testbrowser.DeadURL(t))
	_, c := serve(t, &tabguard.Options{EvalTimeout: 5 * time.Second}, 10*time.Second, "s3cret")
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/frames")
	a := frameAt(t, c, id, fx.URL+"/inner?n=a")

	anon := NewClient(c.BaseURL)
	_, err := anon.Frames(ctx, id)
	requireAPIError(t, err, http.StatusUnauthorized, "missing or wrong bearer token")
	_, err = anon.FrameDOM(ctx, id, a.Frame, 0)
	requireAPIError(t, err, http.StatusUnauthorized, "missing or wrong bearer token")
	auth := map[string]string{"Authorization": "Bearer s3cret"}
	status, body := send(t, c, rawCall{method: http.MethodGet, path: "/browser/frames?tab=" + id, host: "attacker.example", header: auth})
	assert.Equal(t, http.StatusForbidden, status)
	assert.NotContains(t, body, a.Frame)
	status, body = send(t, c, rawCall{method: http.MethodGet, path: "/browser/dom?tab=" + id + "&frame=" + a.Frame,
		header: map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:3000"}})
	assert.Equal(t, http.StatusForbidden, status)
	assert.NotContains(t, body, "héllo")
}

func TestFrameReach(t *testing.T) {
	policy := &tabguard.URLPolicy{BlockedOrigins: []string{"169.254.169.254"}}
	fs := []tabguard.FrameInfo{
		{ID: "ok", ParentID: "tab", URL: "http://127.0.0.1:8000/"},
		{ID: "meta", ParentID: "tab", URL: "http://169.254.169.254/latest/meta-data/"},
		{ID: "blank-in-meta", ParentID: "meta", URL: "about:blank"},
		{ID: "srcdoc", ParentID: "tab", URL: "about:srcdoc"},
		{ID: "ok-in-meta", ParentID: "meta", URL: "http://127.0.0.1:8000/"},
		{ID: "lazy", ParentID: "tab"},
		{ID: "data", ParentID: "tab", URL: "data:text/html,<p>x"},
	}
	tests := []struct {
		id   string
		want string // "" for allowed
	}{
		{"ok", ""},
		{"meta", "frame meta: URL not allowed: http://169.254.169.254/latest/meta-data/: its origin http://169.254.169.254 is blocked"},
		{"blank-in-meta", "frame blank-in-meta: URL not allowed: http://169.254.169.254/latest/meta-data/: its origin http://169.254.169.254 is blocked"},
		{"srcdoc", ""},
		{"ok-in-meta", ""},
		{"lazy", ""},
		{"data", "frame data: URL not allowed: data:text/html,<p>x: the data: scheme is not allowed"},
		{"no-such-frame", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			err := frameReach(policy, fs, tt.id)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.want)
			assert.ErrorIs(t, err, tabguard.ErrURLBlocked)
		})
	}
}
