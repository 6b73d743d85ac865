package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// fixtures serves the test pages from 127.0.0.1: "/" has a button and 600
// links on a tall page; "/hello" is small, titled "hello"; "/count" counts its loads; "/busy" runs a
// 3 s loop shortly after it loads; "/alert" opens an alert 200 ms after it
// loads, and "/prompt" a prompt whose answer becomes its title; "/stall"
// never answers, until the browser gives up on it.
func fixtures(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><body style="margin:0"><button style="width:200px;height:50px">Buy</button>`)
		for i := range 600 {
			fmt.Fprintf(w, `<a href="/item/%d" style="display:block;height:20px">item %d</a>`, i, i)
		}
		fmt.Fprint(w, `</body></html>`)
	})
	page := func(html string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		}
	}
	var loads atomic.Int32
	mux.HandleFunc("/count", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<p>load %d</p>", loads.Add(1))
	})
	mux.HandleFunc("/hello", page(`<title>hello</title><p>héllo</p>`))
	mux.HandleFunc("/alert", page(`<title>alert</title><script>addEventListener("load", () => setTimeout(() => alert("stop"), 200))</script>`))
	mux.HandleFunc("/prompt", page(`<title>before</title><script>addEventListener("load", () => setTimeout(() => { document.title = prompt("your name?") }, 200))</script>`))
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<p>busy</p><script>setTimeout(() => { const end = Date.now() + 3000; while (Date.now() < end) {} }, 50)</script>`)
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // return when the browser gives up, or Close blocks
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// setup starts a control server over the shared browser and a client of it.
// Pages get 10 s to load.
func setup(t *testing.T, evalTimeout time.Duration) (*Server, *Client) {
	t.Helper()
	return setupLoad(t, evalTimeout, 10*time.Second)
}

// setupLoad is setup with a load timeout.
func setupLoad(t *testing.T, evalTimeout, loadTimeout time.Duration) (*Server, *Client) {
	t.Helper()
	return serve(t, &tabguard.Options{EvalTimeout: evalTimeout}, loadTimeout, "")
}

// serve starts a control server over the shared browser, behind Guard with
// token on 127.0.0.1, and a client of it. Calls get 20 s at most.
func serve(t *testing.T, opts *tabguard.Options, loadTimeout time.Duration, token string) (*Server, *Client) {
	t.Helper()
	return serveConfig(t, &ServerConfig{Watch: opts, LoadTimeout: loadTimeout}, token)
}

// serveConfig is serve with a whole ServerConfig.
func serveConfig(t *testing.T, cfg *ServerConfig, token string) (*Server, *Client) {
	t.Helper()
	s, err := NewServer(testbrowser.Shared(t).Browser, cfg)
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(nil)
	hs.Config.Handler = Guard(hs.Listener.Addr().String(), token, s.Handler())
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		require.NoError(t, s.Close())
	})
	c := NewClient(hs.URL)
	c.HTTP.Timeout, c.Long.Timeout = 20*time.Second, 20*time.Second
	c.Token = token
	return s, c
}

// open opens a tab at url through the client and fails t if it cannot.
func open(t *testing.T, c *Client, url string) string {
	t.Helper()
	id, err := c.Open(testbrowser.Context(t, 20*time.Second), url)
	require.NoError(t, err)
	return id
}

// crash kills the renderer of the server's tab, through a rod page of its
// own, and waits until the tab's watcher refuses calls with the crash
// reason. Page.crash gets no reply, so it runs under a short context.
func crash(t *testing.T, s *Server, id string) {
	t.Helper()
	page := rodPage(t, id)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = proto.PageCrash{}.Call(page.Context(ctx)) // no reply is the expected outcome
	w, err := s.tab(testbrowser.Context(t, 5*time.Second), id)
	require.NoError(t, err)
	// Inspector.targetCrashed and Target.targetCrashed arrive a few ms
	// apart, and only the second one carries the reason: wait for both.
	eventually(t, "the crash", func() bool {
		return errors.Is(w.Blocked(testbrowser.Context(t, time.Second)), tabguard.ErrTabCrashed) &&
			w.State().CrashReason != ""
	})
}

// rodPage attaches a rod page of the test's own to tab id, as another
// client of the browser would.
func rodPage(t *testing.T, id string) *rod.Page {
	t.Helper()
	page, err := testbrowser.Shared(t).PageFromTarget(proto.TargetTargetID(id))
	require.NoError(t, err)
	return page
}

// targets lists the IDs of the browser's page targets, asking the browser.
func targets(t *testing.T) []string {
	t.Helper()
	res, err := proto.TargetGetTargets{}.Call(testbrowser.Shared(t).Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
	var ids []string
	for _, ti := range res.TargetInfos {
		if ti.Type == proto.TargetTargetInfoTypePage {
			ids = append(ids, string(ti.TargetID))
		}
	}
	return ids
}

// listed returns tab id as GET /browser/tabs lists it.
func listed(t *testing.T, c *Client, id string) (TabInfo, bool) {
	t.Helper()
	tabs, err := c.Tabs(testbrowser.Context(t, 10*time.Second))
	require.NoError(t, err)
	for _, ti := range tabs {
		if ti.Tab == id {
			return ti, true
		}
	}
	return TabInfo{}, false
}

// eventually polls cond every 20 ms until it holds or 20 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 20s waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// requireAPIError checks that err is an error answer with status and a
// message holding want.
func requireAPIError(t *testing.T, err error, status int, want string) {
	t.Helper()
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, status, ae.Status, "message: %s", ae.Message)
	require.True(t, strings.Contains(ae.Message, want), "message %q does not hold %q", ae.Message, want)
}
