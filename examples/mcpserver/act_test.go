package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manyLinks is the number of links on "/many", over the snapshot's cap of
// 500 elements.
const manyLinks = 1200

// actPages serves "/shop" (a button that counts its clicks, a link to
// "/next", a field and a button that opens an alert), "/next",
// "/covered" (a button under a cookie banner) and "/many" (manyLinks
// links) from 127.0.0.1.
func actPages(t *testing.T) *httptest.Server {
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
	var many strings.Builder
	for i := range manyLinks {
		fmt.Fprintf(&many, "<a href=\"/l%d\">link %d</a><br>\n", i, i)
	}
	html["/many"] = many.String()
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

// refOf returns the ref of the snapshot line whose role and name are
// roleName, such as `button "Buy"`.
func refOf(t *testing.T, snapshot, roleName string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^(\S+) ` + regexp.QuoteMeta(roleName)).FindStringSubmatch(snapshot)
	require.NotNil(t, m, "%s in the snapshot:\n%s", roleName, snapshot)
	return m[1]
}

func TestClickBySelectorAndRef(t *testing.T) {
	cs := connect(t)
	tab := openTab(t, cs, actPages(t).URL+"/shop")

	var byCSS ClickOutput
	res := ok(t, cs, "click", map[string]any{"tab": tab, "selector": "#buy"}, &byCSS)
	assert.Equal(t, `click on <button id="buy">`, text(t, res))
	assert.Equal(t, "button", byCSS.Tag)
	assert.Equal(t, `<button id="buy">`, byCSS.Element)

	var snap SnapshotOutput
	res = ok(t, cs, "snapshot", map[string]any{"tab": tab}, &snap)
	body := text(t, res)
	assert.Contains(t, body, `heading "Shop"`)
	assert.Contains(t, body, `textbox "Name" value="before"`)
	assert.Equal(t, 0, snap.NextOffset)
	assert.Equal(t, snap.Total, snap.Shown)
	var byRef ClickOutput
	ok(t, cs, "click", map[string]any{"tab": tab, "ref": refOf(t, body, `button "Buy"`)}, &byRef)
	assert.Equal(t, byCSS.ActResult, byRef.ActResult, "the same button by ref as by selector")

	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => window.clicks"}, &v)
	assert.Equal(t, float64(2), v.Value, "each click reached the button once")

	assert.Equal(t, "missing ref, selector or x and y: pass a ref from the snapshot tool, a CSS selector, or a point", fails(t, cs, "click", map[string]any{"tab": tab}))
	msg := fails(t, cs, "click", map[string]any{"tab": tab, "selector": "#nothing"})
	assert.True(t, strings.HasPrefix(msg, `no element matches "#nothing"`), msg)
	assert.Contains(t, msg, "the snapshot tool lists what the page holds")
	assert.NotContains(t, msg, "Watcher.")
}

func TestTypeAndDialog(t *testing.T) {
	cs := connect(t)
	tab := openTab(t, cs, actPages(t).URL+"/shop")
	var typed ActOutput
	res := ok(t, cs, "type", map[string]any{"tab": tab, "selector": "#name", "text": "héllo 日本"}, &typed)
	assert.Equal(t, "héllo 日本", typed.Value)
	assert.Equal(t, `fill on <input id="name" aria-label="Name">, value now "héllo 日本"`, text(t, res))
	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.getElementById('name').value"}, &v)
	assert.Equal(t, "héllo 日本", v.Value)

	var warned ClickOutput
	res = ok(t, cs, "click", map[string]any{"tab": tab, "selector": "#warn"}, &warned)
	require.NotNil(t, warned.Dialog, text(t, res))
	assert.Equal(t, DialogInfo{Type: "alert", Message: "sure?"}, *warned.Dialog)
	assert.Contains(t, text(t, res), "call handle_dialog")
	ok(t, cs, "handle_dialog", map[string]any{"tab": tab, "accept": true}, nil)
}

// A button under a cookie banner is not clicked, and the answer says why
// first: what covers it.
func TestClickCovered(t *testing.T) {
	cs := connect(t)
	tab := openTab(t, cs, actPages(t).URL+"/covered")
	msg := fails(t, cs, "click", map[string]any{"tab": tab, "selector": "#t"})
	assert.True(t, strings.HasPrefix(msg, `covered by <div id="cookie-banner">`), msg)
	assert.Contains(t, msg, `click on <button id="t"> not done`)
	assert.Contains(t, msg, "dismiss what covers it first")
}

// A click on a link by ref says it navigated; the page's refs are stale
// after, and the error says which tool gives fresh ones.
func TestStaleRefAfterNavigation(t *testing.T) {
	cs := connect(t)
	srv := actPages(t)
	tab := openTab(t, cs, srv.URL+"/shop")
	res := ok(t, cs, "snapshot", map[string]any{"tab": tab}, nil)
	buy, next := refOf(t, text(t, res), `button "Buy"`), refOf(t, text(t, res), `link "Next page"`)

	var clicked ClickOutput
	res = ok(t, cs, "click", map[string]any{"tab": tab, "ref": next}, &clicked)
	require.NotNil(t, clicked.Navigation, text(t, res))
	assert.Equal(t, srv.URL+"/next", clicked.Navigation.URL)
	assert.Contains(t, []string{"pending", "committed"}, clicked.Navigation.State)
	assert.Contains(t, text(t, res), "navigation to "+srv.URL+"/next")
	assert.Contains(t, clicked.Next, "call snapshot")
	require.Eventually(t, func() bool {
		res := call(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"})
		return !res.IsError && text(t, res) == `{"value":"next"}`
	}, 15*time.Second, 50*time.Millisecond)

	msg := fails(t, cs, "click", map[string]any{"tab": tab, "ref": buy})
	assert.True(t, strings.HasPrefix(msg, "ref "+buy+" is of an earlier page"), msg)
	assert.Contains(t, msg, "take fresh refs with the snapshot tool")
	assert.NotContains(t, msg, "Watcher.")
	msg = fails(t, cs, "click", map[string]any{"tab": tab, "ref": "f1e1"})
	assert.Contains(t, msg, "stale ref: f1e1")
	assert.Contains(t, msg, "take fresh refs with the snapshot tool")
}

// A page of more links than the snapshot's cap is read in windows that
// say how to read on, and join to every link once.
func TestSnapshotWindows(t *testing.T) {
	cs := connect(t)
	tab := openTab(t, cs, actPages(t).URL+"/many")
	refs := map[string]bool{}
	args := map[string]any{"tab": tab}
	for windows := 1; ; windows++ {
		var out SnapshotOutput
		body := text(t, ok(t, cs, "snapshot", args, &out))
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		t.Logf("window %d: %d elements in %d bytes of text", windows, out.Shown, len(body))
		if out.NextOffset == 0 {
			for _, l := range lines {
				refs[strings.Fields(l)[0]] = true
			}
			assert.Equal(t, 3, windows, "500 + 500 + 200")
			break
		}
		assert.Equal(t, fmt.Sprintf("showing elements %d-%d of %d: to read on, call snapshot with offset %d", out.Offset+1, out.Offset+out.Shown, manyLinks, out.NextOffset), lines[len(lines)-1])
		assert.Equal(t, 500, out.Shown, "the default cap")
		for _, l := range lines[:len(lines)-1] {
			refs[strings.Fields(l)[0]] = true
		}
		args = map[string]any{"tab": tab, "offset": out.NextOffset}
		require.Less(t, windows, 5)
	}
	assert.Len(t, refs, manyLinks, "every link once")
}
