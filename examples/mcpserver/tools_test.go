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
	"github.com/tabguard/tabguard/internal/agentprompt"
	"go.opentelemetry.io/otel/trace"
)

// connect serves the tools to an in-memory client session for t.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connectTraced(t, nil)
}

// connectBusy is connect with a 3 s eval timeout, for a test that waits
// out runaway scripts: the renderer spins until each timeout.
func connectBusy(t *testing.T) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, &tabguard.Options{EvalTimeout: busyTimeout, URLs: config{blocked: defaultBlocked}.policy()}, nil)
}

// busyTimeout is connectBusy's eval timeout.
const busyTimeout = 3 * time.Second

// connectTraced is connect with the server tracing to tp.
func connectTraced(t *testing.T, tp trace.TracerProvider) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: defaultBlocked}.policy()}, tp)
}

// connectWith is connect with the watchers' options and tracing to tp.
func connectWith(t *testing.T, opts *tabguard.Options, tp trace.TracerProvider) *mcp.ClientSession {
	t.Helper()
	return connectPrompts(t, opts, tp, agentprompt.Config{})
}

// connectPrompts is connectWith with what handle_prompt may answer with.
func connectPrompts(t *testing.T, opts *tabguard.Options, tp trace.TracerProvider, pc agentprompt.Config) *mcp.ClientSession {
	t.Helper()
	s, tools, err := newServer(testBrowser, opts, tp, pc)
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
	return cs
}

// testContext ends after d or when t ends.
func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// pages serves "/" (a small page), "/big" (about 150 KB) and "/alert"
// from 127.0.0.1.
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

// call calls a tool within 20 s; a protocol error fails t.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testContext(t, 20*time.Second), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "call %s", name)
	return res
}

// ok calls a tool that must succeed and decodes its structured result into out.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res := call(t, cs, name, args)
	require.False(t, res.IsError, "%s: %s", name, text(t, res))
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out))
	}
	return res
}

// fails calls a tool that must fail and returns its error text.
func fails(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	require.True(t, res.IsError, "%s succeeded: %v", name, res.StructuredContent)
	return text(t, res)
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
	var out TabOutput
	ok(t, cs, "open_tab", map[string]any{"url": url}, &out)
	return out.Tab
}

func listed(t *testing.T, cs *mcp.ClientSession, tab string) (TabInfo, bool) {
	t.Helper()
	var out ListTabsOutput
	ok(t, cs, "list_tabs", nil, &out)
	for _, ti := range out.Tabs {
		if ti.Tab == tab {
			return ti, true
		}
	}
	return TabInfo{}, false
}

func TestToolsEndToEnd(t *testing.T) {
	cs := connect(t)
	srv := pages(t)
	tab := openTab(t, cs, srv.URL)
	ti, found := listed(t, cs, tab)
	require.True(t, found)
	assert.True(t, ti.Watched)
	assert.Equal(t, srv.URL+"/", ti.URL)
	assert.Empty(t, ti.Problem)

	res := ok(t, cs, "get_tab_dom", map[string]any{"tab": tab}, nil)
	assert.Contains(t, text(t, res), "<p>héllo</p>")
	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"}, &v)
	assert.Equal(t, "ok", v.Value)

	var nav TabOutput
	ok(t, cs, "navigate", map[string]any{"tab": tab, "url": srv.URL + "/?next"}, &nav)
	assert.Equal(t, srv.URL+"/?next", nav.URL)
	ok(t, cs, "reload_tab", map[string]any{"tab": tab}, nil)
	ok(t, cs, "close_tab", map[string]any{"tab": tab}, nil)
	_, found = listed(t, cs, tab)
	assert.False(t, found, "a closed tab leaves the list")
	assert.Equal(t, "unknown tab "+tab+": call list_tabs or open_tab", fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}))
}

func TestGetTabDOMWindows(t *testing.T) {
	cs := connect(t)
	tab := openTab(t, cs, pages(t).URL+"/big")
	var whole EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.documentElement.outerHTML"}, &whole)

	var got strings.Builder
	args := map[string]any{"tab": tab}
	for windows := 0; ; windows++ {
		var out GetTabDOMOutput
		res := ok(t, cs, "get_tab_dom", args, &out)
		body := text(t, res)
		if out.NextOffset == 0 {
			got.WriteString(body)
			break
		}
		i := strings.LastIndex(body, "\n<!-- cut: bytes ")
		require.Positive(t, i, "a cut window ends with a notice")
		assert.LessOrEqual(t, i, defaultMaxBytes, "the default window is at most 40000 bytes")
		assert.Contains(t, body[i:], fmt.Sprintf("(max_bytes %d); to read on, call get_tab_dom with snapshot %q and offset %d -->", defaultMaxBytes, out.Snapshot, out.NextOffset))
		got.WriteString(body[:i])
		args = map[string]any{"tab": tab, "snapshot": out.Snapshot, "offset": out.NextOffset}
		require.Less(t, windows, 10)
	}
	assert.True(t, got.String() == whole.Value, "the windows join up to the page")

	assert.Contains(t, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "max_bytes": 3}), "max_bytes 3: pass 4 to 1000000")
	assert.Contains(t, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "max_bytes": maxMaxBytes + 1}), "pass 4 to 1000000")
	assert.Equal(t, `selector matches nothing: "table"`, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "selector": "table"}))
	res := ok(t, cs, "get_tab_dom", map[string]any{"tab": tab, "selector": "li:first-child", "text": true}, nil)
	assert.Equal(t, "héllo wörld 日本語", text(t, res))
	assert.Contains(t, fails(t, cs, "get_tab_dom", map[string]any{"tab": tab, "snapshot": "s999", "offset": 4}), "call get_tab_dom without snapshot and offset")
}

// crashTab kills the tab's renderer, as an out-of-memory page would.
func crashTab(t *testing.T, tab string) {
	t.Helper()
	page, err := testBrowser.PageFromTarget(proto.TargetTargetID(tab))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = proto.PageCrash{}.Call(page.Context(ctx))
}

// Every fault a tab can have is recovered with the server's own tools, and
// the errors say which.
func TestRecoverWithTheTools(t *testing.T) {
	cs := connectBusy(t)
	srv := pages(t)
	tab := openTab(t, cs, srv.URL)

	crashTab(t, tab)
	var msg string
	require.Eventually(t, func() bool {
		res := call(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"})
		msg = text(t, res)
		return res.IsError
	}, 15*time.Second, 20*time.Millisecond)
	assert.Equal(t, "tab renderer crashed (reason: crashed): call reload_tab", msg)
	ti, _ := listed(t, cs, tab)
	assert.Equal(t, msg, ti.Problem, "list_tabs says it too, asking no page")
	ok(t, cs, "reload_tab", map[string]any{"tab": tab}, nil)
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}, nil)

	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": `() => { setTimeout(() => alert("stop"), 0) }`}, nil)
	require.Eventually(t, func() bool {
		ti, _ := listed(t, cs, tab)
		return ti.Problem != ""
	}, 15*time.Second, 20*time.Millisecond)
	assert.Equal(t, `tab has a JavaScript dialog open: alert "stop": call handle_dialog`, fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}))
	ok(t, cs, "handle_dialog", map[string]any{"tab": tab, "accept": true}, nil)
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}, nil)
	assert.Equal(t, "no JavaScript dialog is open: nothing to handle", fails(t, cs, "handle_dialog", map[string]any{"tab": tab, "accept": true}))

	// A runaway script is stopped at the deadline: the next call answers.
	msg = fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => { while (true) {} }"})
	assert.Contains(t, msg, "script terminated, the tab answers again")
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}, nil)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	msg = fails(t, cs, "navigate", map[string]any{"tab": tab, "url": dead})
	assert.Equal(t, "tab has no document: net::ERR_CONNECTION_REFUSED loading "+dead+": call navigate, or reload_tab to try the same URL", msg)
	ok(t, cs, "navigate", map[string]any{"tab": tab, "url": srv.URL}, nil)
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}, nil)
}

// Page text can steer an agent into opening file:///etc/passwd or the
// cloud metadata address: the server opens neither.
func TestURLPolicy(t *testing.T) {
	cs := connect(t)
	for _, u := range []string{"file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "http://2852039166/latest/meta-data/", "http://[::ffff:a9fe:a9fe]/", "javascript:alert(1)", "chrome://settings", "data:text/html,<p>x"} {
		msg := fails(t, cs, "open_tab", map[string]any{"url": u})
		assert.Contains(t, msg, "URL not allowed: "+u, u)
		assert.Contains(t, msg, "the server does not open it", u)
	}
	var out ListTabsOutput
	ok(t, cs, "list_tabs", nil, &out)
	for _, ti := range out.Tabs {
		assert.NotContains(t, ti.URL, "passwd", "nothing was opened")
	}
	tab := openTab(t, cs, pages(t).URL)
	assert.Contains(t, fails(t, cs, "navigate", map[string]any{"tab": tab, "url": "file:///etc/passwd"}), "the file: scheme is not allowed")
}
