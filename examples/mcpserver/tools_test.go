package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
)

// connect serves the tools to an in-memory client session for t.
func connect(t *testing.T) (*mcp.ClientSession, *browserTools) {
	t.Helper()
	s, tools, err := newServer(testBrowser, &tabguard.Options{EvalTimeout: 2 * time.Second})
	require.NoError(t, err)
	ct, st := mcp.NewInMemoryTransports()
	ctx := testContext(t, 10*time.Second)
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cs.Close())
		require.NoError(t, ss.Wait())
		require.NoError(t, tools.Close())
	})
	return cs, tools
}

// testContext ends after d or when t ends.
func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// pages serves "/" (a small page) and "/big" (about 150 KB) from 127.0.0.1.
func pages(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>ok</title><p>héllo</p>`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, strings.Repeat("<li>héllo wörld 日本語</li>\n", 5000))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// call calls a tool within 10 s; a protocol error fails t.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testContext(t, 10*time.Second), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "call %s", name)
	return res
}

// text returns the result's one text content.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

// openTab opens url with open_tab and returns the tab ID.
func openTab(t *testing.T, cs *mcp.ClientSession, url string) string {
	t.Helper()
	res := call(t, cs, "open_tab", map[string]any{"url": url})
	require.False(t, res.IsError, "open_tab: %s", text(t, res))
	var out OpenTabOutput
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &out))
	return out.Tab
}

// structured decodes the result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

func TestGetTabDOM(t *testing.T) {
	cs, _ := connect(t)
	id := openTab(t, cs, pages(t).URL+"/big")

	res := call(t, cs, "get_tab_dom", map[string]any{"tab": id}) // the default cap
	require.False(t, res.IsError, text(t, res))
	var out GetTabDOMOutput
	structured(t, res, &out)
	assert.True(t, out.Truncated)
	assert.Greater(t, out.Size, tabguard.DefaultMaxDOMBytes)
	html := text(t, res)
	assert.Contains(t, html, fmt.Sprintf("<!-- truncated: showing %d of %d bytes (max_bytes %d);", tabguard.DefaultMaxDOMBytes, out.Size, tabguard.DefaultMaxDOMBytes))
	assert.LessOrEqual(t, len(html), tabguard.DefaultMaxDOMBytes+200)

	res = call(t, cs, "get_tab_dom", map[string]any{"tab": id, "max_bytes": 1000})
	require.False(t, res.IsError, text(t, res))
	assert.Contains(t, text(t, res), fmt.Sprintf(" of %d bytes (max_bytes 1000); call get_tab_dom with a larger max_bytes to see more -->", out.Size))
	assert.Less(t, len(text(t, res)), 1200)

	res = call(t, cs, "get_tab_dom", map[string]any{"tab": id, "max_bytes": -1})
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), "max_bytes -1: pass a positive byte count")
}

func TestEvalInTab(t *testing.T) {
	cs, _ := connect(t)
	id := openTab(t, cs, pages(t).URL)

	res := call(t, cs, "eval_in_tab", map[string]any{"tab": id, "js": `() => ({title: document.title, text: document.querySelector("p").textContent})`})
	require.False(t, res.IsError, text(t, res))
	var out struct{ Value map[string]string }
	structured(t, res, &out)
	assert.Equal(t, map[string]string{"title": "ok", "text": "héllo"}, out.Value)

	res = call(t, cs, "eval_in_tab", map[string]any{"tab": id, "js": `() => new Promise(() => {})`})
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), "eval timed out after 2s")

	res = call(t, cs, "eval_in_tab", map[string]any{"tab": "nope", "js": `() => 1`})
	assert.True(t, res.IsError)
	assert.Equal(t, `unknown tab "nope": open one with open_tab`, text(t, res))
}

func TestToolsOnCrashedTab(t *testing.T) {
	cs, tools := connect(t)
	id := openTab(t, cs, pages(t).URL)
	tb, err := tools.tab(id)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = proto.PageCrash{}.Call(tb.page.Context(ctx)) // Chrome never answers Page.crash
	deadline := time.Now().Add(5 * time.Second)
	for tb.w.State().CrashReason == "" {
		require.True(t, time.Now().Before(deadline), "the watcher saw no crash within 5s")
		time.Sleep(20 * time.Millisecond)
	}

	const want = "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)"
	start := time.Now()
	res := call(t, cs, "get_tab_dom", map[string]any{"tab": id})
	assert.True(t, res.IsError)
	assert.Equal(t, want, text(t, res))
	res = call(t, cs, "eval_in_tab", map[string]any{"tab": id, "js": `() => 1`})
	assert.True(t, res.IsError)
	assert.Equal(t, want, text(t, res))
	assert.Less(t, time.Since(start), time.Second, "a crashed tab must be refused, not waited on")
}

func TestToolsOnDeadTab(t *testing.T) {
	cs, _ := connect(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close()) // nothing listens there now

	res := call(t, cs, "open_tab", map[string]any{"url": url})
	require.True(t, res.IsError)
	msg := text(t, res)
	want := "tab has no document: net::ERR_CONNECTION_REFUSED loading " + url + ": navigate again (Watcher.Navigate)"
	assert.Contains(t, msg, "load "+url+": "+want)
	id, _, ok := strings.Cut(strings.TrimPrefix(msg, "tab "), ":")
	require.True(t, ok, msg)

	// At once: open_tab returned the failure, so the watcher knows it.
	res = call(t, cs, "get_tab_dom", map[string]any{"tab": id})
	require.True(t, res.IsError)
	assert.Equal(t, want, text(t, res))
	res = call(t, cs, "eval_in_tab", map[string]any{"tab": id, "js": `() => 1`})
	assert.True(t, res.IsError)
	assert.Equal(t, want, text(t, res))
}
