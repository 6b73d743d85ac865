package faultrows

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// actionPage is a page with the button #t, whose click sets
// window.clicked, around body.
func actionPage(style, body string) string {
	return `<!doctype html><html><head><title>act</title><style>` + style + `</style></head><body>` + body +
		`<script>window.clicked = false; document.getElementById("t") && document.getElementById("t").addEventListener("click", () => { window.clicked = true })</script></body></html>`
}

// actionPages are the pages of ActionRows, by path.
var actionPages = map[string]string{
	"/ok":      actionPage("", `<button id="t"><span class="label">Target</span></button>`),
	"/covered": actionPage("#cookie-banner{position:fixed;inset:0;z-index:10;background:#eee}", `<button id="t">Target</button><div id="cookie-banner">We use cookies</div>`),
	"/moving": actionPage("@keyframes m{from{margin-left:0}to{margin-left:600px}} #t{animation:m 1s linear infinite}",
		`<button id="t">Target</button>`),
	"/disabled":  actionPage("", `<button id="t" disabled>Target</button>`),
	"/hidden":    actionPage("", `<div style="display:none"><button id="t">Target</button></div>`),
	"/zero":      actionPage("#t{width:0;height:0;padding:0;border:0;overflow:hidden}", `<button id="t">Target</button>`),
	"/offscreen": actionPage("#t{position:absolute;top:5000px}", `<button id="t">Target</button>`),
	"/inframe":   actionPage("", `<iframe id="f" src="/ok"></iframe>`),
	"/readonly":  actionPage("", `<input id="i" readonly value="before">`),
	"/fill": actionPage("", `<input id="i" value="before"><script>window.inputs = 0;
		document.getElementById("i").addEventListener("input", () => window.inputs++)</script>`),
	"/select": actionPage("", `<select id="s"><option value="a">Apple</option><option value="b">Banana</option></select>
		<script>window.changed = false; document.getElementById("s").addEventListener("change", () => { window.changed = true })</script>`),
	"/press": actionPage("", `<input id="i"><script>window.keys = [];
		document.getElementById("i").addEventListener("keydown", e => window.keys.push(e.key))</script>`),
	"/hover": actionPage("", `<button id="t">Target</button><script>window.hovered = false;
		document.getElementById("t").addEventListener("mouseover", () => { window.hovered = true })</script>`),
	"/double": actionPage("", `<button id="t">Target</button><script>window.doubled = false;
		document.getElementById("t").addEventListener("dblclick", () => { window.doubled = true })</script>`),
	"/right": actionPage("", `<button id="t">Target</button><script>window.menu = false;
		document.getElementById("t").addEventListener("contextmenu", e => { e.preventDefault(); window.menu = true })</script>`),
	"/alert":    actionPage("", `<button id="t" onclick="alert('hi from click')">Target</button>`),
	"/navhang":  actionPage("", `<a id="t" href="/hang">Target</a>`),
	"/download": actionPage("", `<a id="t" href="/file">Target</a>`),
	"/popup":    actionPage("", `<button id="t" onclick="window.open('/ok')">Target</button>`),
}

// ActionsServer starts a 127.0.0.1 server for t with the pages of
// ActionRows. "/hang" never answers until the test ends; "/file" is an
// attachment, which the browser downloads.
func ActionsServer(t testing.TB) *httptest.Server {
	t.Helper()
	quit := make(chan struct{})
	mux := http.NewServeMux()
	for path, html := range actionPages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, html) })
	}
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-quit:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.bin"`)
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "0123456789")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		close(quit)
		srv.Close()
	})
	return srv
}

// ActionRow is one action on one page of ActionsServer, and what every
// backend's Watcher.Act answers.
type ActionRow struct {
	Name, Path string
	Action     tabstate.Action
	// Want is the sentinel the error matches; nil for a success.
	Want error
	// First are the error's first words.
	First string
	// Has are words the error holds further on.
	Has []string
	// Check holds a success's answer; After is a JavaScript expression
	// whose value, read after the action, must be the string Then.
	Check       func(t testing.TB, a tabstate.Acted)
	After, Then string
	// Smoke marks a row the chromedp backends run in make test: those
	// whose answer rests on what the driver routes (events, targets,
	// downloads, frames), besides a click and a refusal. Every row runs
	// on rod, and on every backend in a full run (Full).
	Smoke bool
}

// ActionRowsOn are the rows of ActionRows a backend runs: every row on
// rod or in a full run, the Smoke rows otherwise.
func ActionRowsOn(b Backend) []ActionRow {
	if b == Rod || Full() {
		return ActionRows
	}
	var rows []ActionRow
	for _, r := range ActionRows {
		if r.Smoke {
			rows = append(rows, r)
		}
	}
	return rows
}

// ActionRows are the actions of every backend's browser rows.
var ActionRows = []ActionRow{
	{Name: "click", Smoke: true, Path: "/ok", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		After: "String(window.clicked)", Then: "true",
		Check: func(t testing.TB, a tabstate.Acted) {
			want(t, a.Element == `<button id="t">` && a.Received == `<span class="label">`, "Element, Received = %q, %q", a.Element, a.Received)
			want(t, a.X > 0 && a.Y > 0 && a.Navigation == nil && a.Dialog == nil, "X, Y, Navigation, Dialog = %v, %v, %v, %v", a.X, a.Y, a.Navigation, a.Dialog)
		}},
	{Name: "covered", Smoke: true, Path: "/covered", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t", NoWait: true},
		Want: tabstate.ErrNotActionable, First: `covered by <div id="cookie-banner"> at (`, Has: []string{`click on <button id="t"> not done`, "dismiss what covers it"},
		After: "String(window.clicked)", Then: "false"},
	{Name: "covered until the deadline", Path: "/covered", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		Want: tabstate.ErrEvalTimeout, First: `covered by <div id="cookie-banner"> at (`, Has: []string{"not done in "},
		After: "String(window.clicked)", Then: "false"},
	{Name: "moving", Path: "/moving", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t", NoWait: true},
		Want: tabstate.ErrNotActionable, First: "moving (at (", Has: []string{"two frames later"}},
	{Name: "disabled", Path: "/disabled", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t", NoWait: true},
		Want: tabstate.ErrNotActionable, First: "disabled: click on <button id=\"t\"> not done"},
	{Name: "hidden", Path: "/hidden", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t", NoWait: true},
		Want: tabstate.ErrNotActionable, First: "hidden by display: none on <div>"},
	{Name: "no size", Path: "/zero", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t", NoWait: true},
		Want: tabstate.ErrNotActionable, First: "of no size (0x0)"},
	{Name: "off-screen", Path: "/offscreen", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		After: "String(window.clicked)", Then: "true"},
	{Name: "only in an iframe", Smoke: true, Path: "/inframe", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t", NoWait: true},
		Want: tabstate.ErrNoMatch, First: `no element matches "#t", but 1 in frame `, Has: []string{"/ok) match", "pass Action.Frame"}},
	{Name: "read-only", Path: "/readonly", Action: tabstate.Action{Kind: tabstate.ActionFill, Selector: "#i", Text: "hello", NoWait: true},
		Want: tabstate.ErrNotActionable, First: "read-only: fill on <input id=\"i\"> not done",
		After: `document.getElementById("i").value`, Then: "before"},
	{Name: "fill", Smoke: true, Path: "/fill", Action: tabstate.Action{Kind: tabstate.ActionFill, Selector: "#i", Text: "hello"},
		After: `document.getElementById("i").value + " " + (window.inputs > 0)`, Then: "hello true",
		Check: func(t testing.TB, a tabstate.Acted) { want(t, a.Value == "hello", "Value = %q", a.Value) }},
	{Name: "select", Path: "/select", Action: tabstate.Action{Kind: tabstate.ActionSelect, Selector: "#s", Values: []string{"Banana"}},
		After: "String(window.changed)", Then: "true",
		Check: func(t testing.TB, a tabstate.Acted) { want(t, a.Value == "b", "Value = %q", a.Value) }},
	{Name: "press", Path: "/press", Action: tabstate.Action{Kind: tabstate.ActionPress, Selector: "#i", Key: "Enter"},
		After: `window.keys.join()`, Then: "Enter",
		Check: func(t testing.TB, a tabstate.Acted) {
			want(t, a.Received == `<input id="i">`, "Received = %q", a.Received)
		}},
	{Name: "hover", Path: "/hover", Action: tabstate.Action{Kind: tabstate.ActionHover, Selector: "#t"},
		After: "String(window.hovered)", Then: "true"},
	{Name: "double-click", Path: "/double", Action: tabstate.Action{Kind: tabstate.ActionDoubleClick, Selector: "#t"},
		After: "String(window.doubled)", Then: "true"},
	{Name: "right-click", Path: "/right", Action: tabstate.Action{Kind: tabstate.ActionRightClick, Selector: "#t"},
		After: "String(window.menu)", Then: "true"},
	{Name: "alert", Smoke: true, Path: "/alert", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		Check: func(t testing.TB, a tabstate.Acted) {
			want(t, a.Dialog != nil && *a.Dialog == tabstate.ActionDialog{Type: "alert", Message: "hi from click"}, "Dialog = %+v", a.Dialog)
		}},
	{Name: "navigation that hangs", Smoke: true, Path: "/navhang", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		Check: func(t testing.TB, a tabstate.Acted) {
			n := a.Navigation
			want(t, n != nil && strings.HasSuffix(n.URL, "/hang") && !n.Committed && n.Error == "", "Navigation = %+v", n)
		}},
	{Name: "download", Smoke: true, Path: "/download", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		Check: func(t testing.TB, a tabstate.Acted) {
			want(t, a.Download != nil && strings.HasSuffix(a.Download.URL, "/file") && a.Navigation == nil, "Download, Navigation = %+v, %+v (%s)", a.Download, a.Navigation, a)
		}},
	{Name: "popup", Smoke: true, Path: "/popup", Action: tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"},
		Check: func(t testing.TB, a tabstate.Acted) { want(t, len(a.NewTabs) == 1, "NewTabs = %v", a.NewTabs) }},
}

// want reports a failed check.
func want(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
}

// CheckAction holds an action's answers to row: acted and err from Act,
// and read, which evaluates an expression on the tab afterwards.
func CheckAction(t testing.TB, row ActionRow, acted tabstate.Acted, err error, read func(ctx context.Context, js string) (string, error)) {
	t.Helper()
	if row.Want == nil {
		if err != nil {
			t.Fatalf("Act = %v; want a success", err)
		}
		if row.Check != nil {
			row.Check(t, acted)
		}
	} else {
		if !errors.Is(err, row.Want) {
			t.Fatalf("Act = %v, %v; want an error matching %v", acted, err, row.Want)
		}
		if !strings.HasPrefix(err.Error(), row.First) {
			t.Errorf("Act = %q; want it to begin %q", err, row.First)
		}
		for _, w := range row.Has {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Act = %q; want it to hold %q", err, w)
			}
		}
	}
	if row.After != "" {
		got, err := read(context.Background(), row.After)
		if err != nil {
			t.Fatalf("reading %s: %v", row.After, err)
		}
		if got != row.Then {
			t.Errorf("%s = %q after the action; want %q", row.After, got, row.Then)
		}
	}
}
