package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
)

// framePages serves pages with iframes from 127.0.0.1: "/frames" holds one
// of the same site (#a) and one of another (#b: localhost on the same
// port), "/frames/dead" one of dead, a URL nothing answers, and
// "/frames/lazy" one far below the fold, loading=lazy. "/inner?n=N" is an
// iframe's page, titled inner-N.
func framePages(t *testing.T, dead string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>outer</title><p>outer</p>`+body)
	}
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>inner-%s</title><p>inner %s, héllo</p>`, n, n)
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

// deadURL is an http URL on 127.0.0.1 at a port nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	return dead
}

// frames lists the tab's iframes with list_frames.
func frames(t *testing.T, cs *mcp.ClientSession, tab string) []FrameInfo {
	t.Helper()
	var out ListFramesOutput
	ok(t, cs, "list_frames", map[string]any{"tab": tab}, &out)
	return out.Frames
}

// frameAt returns the iframe of fs at url.
func frameAt(t *testing.T, fs []FrameInfo, url string) FrameInfo {
	t.Helper()
	for _, f := range fs {
		if f.URL == url {
			return f
		}
	}
	t.Fatalf("no frame at %s in %+v", url, fs)
	return FrameInfo{}
}

func TestFrames(t *testing.T) {
	cs := connect(t)
	srv := framePages(t, deadURL(t))
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	tab := openTab(t, cs, srv.URL+"/frames")

	fs := frames(t, cs, tab)
	require.Len(t, fs, 2)
	a, b := frameAt(t, fs, srv.URL+"/inner?n=a"), frameAt(t, fs, "http://localhost:"+port+"/inner?n=b")
	assert.Equal(t, FrameInfo{Frame: a.Frame, Parent: tab, URL: srv.URL + "/inner?n=a"}, a, "an iframe of the page has the tab as its parent")
	assert.Equal(t, FrameInfo{Frame: b.Frame, Parent: tab, URL: "http://localhost:" + port + "/inner?n=b"}, b)

	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": a.Frame, "js": "() => document.title"}, &v)
	assert.Equal(t, "inner-a", v.Value)
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": b.Frame, "js": "() => location.host"}, &v)
	assert.Equal(t, "localhost:"+port, v.Value, "the iframe of another site answers itself")
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"}, &v)
	assert.Equal(t, "outer", v.Value, "without a frame, the page")

	res := ok(t, cs, "get_tab_dom", map[string]any{"tab": tab, "frame": b.Frame}, nil)
	assert.Contains(t, text(t, res), "<p>inner b, héllo</p>")
	assert.NotContains(t, text(t, res), "outer")
	res = ok(t, cs, "get_tab_dom", map[string]any{"tab": tab, "frame": a.Frame, "text": true}, nil)
	assert.Equal(t, "inner a, héllo", text(t, res))
}

// A frame's windows are read on by naming the frame again, as the notice
// says.
func TestFrameDOMWindows(t *testing.T) {
	cs := connect(t)
	srv := framePages(t, deadURL(t))
	tab := openTab(t, cs, srv.URL+"/frames")
	a := frameAt(t, frames(t, cs, tab), srv.URL+"/inner?n=a")
	var whole EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": a.Frame, "js": "() => document.documentElement.outerHTML"}, &whole)

	var got strings.Builder
	args := map[string]any{"tab": tab, "frame": a.Frame, "max_bytes": 16}
	for windows := 0; ; windows++ {
		var out GetTabDOMOutput
		body := text(t, ok(t, cs, "get_tab_dom", args, &out))
		if out.NextOffset == 0 {
			got.WriteString(body)
			break
		}
		i := strings.LastIndex(body, "\n<!-- cut: bytes ")
		require.Positive(t, i, "a cut window ends with a notice")
		assert.Contains(t, body[i:], fmt.Sprintf("call get_tab_dom with frame %q, snapshot %q and offset %d -->", a.Frame, out.Snapshot, out.NextOffset))
		got.WriteString(body[:i])
		args = map[string]any{"tab": tab, "frame": a.Frame, "max_bytes": 16, "snapshot": out.Snapshot, "offset": out.NextOffset}
		require.Less(t, windows, 20)
	}
	assert.True(t, got.String() == whole.Value, "the windows join up to the frame's page: %q", got.String())
}

// A frame's refusals name the server's tools: list_frames for a frame the
// tab does not have, reload_tab for one whose page did not load.
func TestFrameRefusals(t *testing.T) {
	cs := connect(t)
	dead := deadURL(t)
	srv := framePages(t, dead)
	tab := openTab(t, cs, srv.URL+"/frames/dead")

	gone := "frame is detached: no such frame in the tab (frame NOSUCH): call list_frames"
	assert.Equal(t, gone, fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": "NOSUCH", "js": "() => 1"}))
	assert.Equal(t, gone, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "frame": "NOSUCH"}))

	fs := frames(t, cs, tab)
	require.Len(t, fs, 1)
	d := fs[0]
	want := "frame has no document: net::ERR_CONNECTION_REFUSED loading " + dead + ": call reload_tab"
	assert.Equal(t, want, d.Problem, "list_frames says why, asking no page")
	assert.False(t, d.Loading)
	assert.Equal(t, want, fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": d.Frame, "js": "() => document.title"}))
	assert.Equal(t, want, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "frame": d.Frame}))
	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"}, &v)
	assert.Equal(t, "outer", v.Value, "the tab lives on")
}

// A frame that never loads its page is waited for to the deadline, and
// the timeout names the tools that help, not the library's Go calls.
func TestFrameNeverLoaded(t *testing.T) {
	cs := connectWith(t, &tabguard.Options{EvalTimeout: time.Second}, nil)
	srv := framePages(t, deadURL(t))
	tab := openTab(t, cs, srv.URL+"/frames/lazy")
	fs := frames(t, cs, tab)
	require.Len(t, fs, 1)
	assert.True(t, fs[0].Loading, "a lazy iframe out of view has no page yet")
	assert.Empty(t, fs[0].Problem)

	msg := fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": fs[0].Frame, "js": "() => document.title"})
	assert.Contains(t, msg, "frame eval timed out after 1s (frame "+fs[0].Frame+" never loaded a document")
	assert.True(t, strings.HasSuffix(msg, ": scroll the iframe into view with eval_in_tab, or call list_frames for the frames that loaded)"), msg)
	assert.NotContains(t, msg, "Watcher.")
}

// An iframe of another origin holds what the page's own eval cannot read:
// the server reads it only at a URL it would open itself, so a page cannot
// hand it one that the policy blocks.
func TestFrameURLPolicy(t *testing.T) {
	cs := connectWith(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: defaultBlocked + ";localhost"}.policy()}, nil)
	srv := framePages(t, deadURL(t))
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	tab := openTab(t, cs, srv.URL+"/frames")
	fs := frames(t, cs, tab)
	a, b := frameAt(t, fs, srv.URL+"/inner?n=a"), frameAt(t, fs, "http://localhost:"+port+"/inner?n=b")

	want := "frame " + b.Frame + ": URL not allowed: http://localhost:" + port + "/inner?n=b: its origin http://localhost:" + port +
		" is blocked: the server reads no frame at a URL it would not open"
	assert.Equal(t, want, b.Problem)
	assert.Empty(t, a.Problem)
	assert.Equal(t, want, fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": b.Frame, "js": "() => document.title"}))
	assert.Equal(t, want, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "frame": b.Frame}))
	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "frame": a.Frame, "js": "() => document.title"}, &v)
	assert.Equal(t, "inner-a", v.Value)
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
