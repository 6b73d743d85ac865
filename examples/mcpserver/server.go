package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/otelguard"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

const (
	// loadTimeout bounds open_tab and navigate, which wait for the page's
	// load event.
	loadTimeout = 60 * time.Second
	// defaultMaxBytes is get_tab_dom's window when max_bytes is not given:
	// under what common clients keep inline (Claude Code moves text
	// results over 50,000 characters into a file), with room for the JSON
	// escapes of <, > and & on the wire.
	defaultMaxBytes = 40000
	// maxMaxBytes bounds max_bytes: a window's JSON stays far under the
	// 10 MiB at which common stdio clients drop the connection.
	maxMaxBytes = 1000000
)

// browserTools serves the tools over one rod browser, which one
// tabguard.BrowserWatcher follows, with a tabguard.Watcher from it for each
// tab a tool has touched.
type browserTools struct {
	bw      *tabguard.BrowserWatcher
	urls    *tabguard.URLPolicy // what the tabs may open, and so what their iframes may be read at
	prompts *agentprompt.State  // what handle_prompt set, and what it may set
	snaps   *agentprompt.Snapshots

	mu   sync.Mutex
	tabs map[string]*tabguard.Watcher
}

// newServer returns an MCP server with the browser tools over b. opts
// configures the tabs' watchers and may be nil; the server always stops a
// runaway script (TerminateOnTimeout), so the tab answers the next call,
// and opens only http and https URLs unless opts.URLs allows more, nor
// reads an iframe at a URL it would not open. tp traces each tool call,
// and the guarded calls it makes as its children (through otelguard,
// which replaces opts.Trace); nil means no tracing. The caller should
// call Close on the returned tools when finished.
//
// pc is what handle_prompt may answer prompts with; the zero value answers
// none. The watchers' Credentials and FileChooser are the server's own,
// giving only what handle_prompt set on each tab: a sign-in the agent did
// not allow is refused, and a chooser given no files is cancelled.
func newServer(b *rod.Browser, opts *tabguard.Options, tp trace.TracerProvider, pc agentprompt.Config) (*mcp.Server, *browserTools, error) {
	o := tabguard.Options{}
	if opts != nil {
		o = *opts
	}
	t := &browserTools{tabs: map[string]*tabguard.Watcher{}}
	t.prompts = agentprompt.NewState(pc, t.tabOf)
	o.TerminateOnTimeout = true
	o.Advice = toolAdvice(pc) // every error names this server's tools
	o.Advice.Word = wordAction
	t.prompts.SetCallbacks(&o)
	if o.URLs == nil {
		o.URLs = &tabguard.URLPolicy{}
	}
	if tp != nil {
		o.Trace = otelguard.New(otelguard.WithTracerProvider(tp))
	} else {
		tp = noop.NewTracerProvider()
	}
	bw, err := tabguard.WatchBrowser(b, &o)
	if err != nil {
		return nil, nil, err
	}
	t.bw, t.urls = bw, o.URLs
	t.snaps = agentprompt.NewSnapshots(func(frames []tabguard.FrameInfo, id string) error { return frameReach(t.urls, frames, id) })
	s := mcp.NewServer(&mcp.Implementation{Name: "tabguard-browser", Version: "v0.2.0"}, nil)
	names := map[string]bool{}
	add := func(name, description string) *mcp.Tool {
		names[name] = true
		return &mcp.Tool{Name: name, Description: description}
	}
	mcp.AddTool(s, add("list_tabs", "List every tab of the browser with its URL and, when a call on it would fail, why and which tool fixes it. Asks no page, so it answers even when tabs hang."), t.listTabs)
	mcp.AddTool(s, add("open_tab", "Open a tab at a URL and wait for it to load."), t.openTab)
	mcp.AddTool(s, add("navigate", "Load a URL in a tab and wait for it to load. Recovers a tab whose load failed."), t.navigate)
	mcp.AddTool(s, add("reload_tab", "Reload a tab and wait for it to load. Recovers a crashed tab."), t.reloadTab)
	mcp.AddTool(s, add("close_tab", "Close a tab, whatever its state."), t.closeTab)
	mcp.AddTool(s, add("handle_dialog", "Accept or dismiss the JavaScript dialog (alert, confirm, prompt, beforeunload) open in a tab."), t.handleDialog)
	mcp.AddTool(s, add("handle_prompt", "Get past a prompt with what the server is configured with. kind sign_in with origin: the server answers the tab's sign-ins at that origin with its credentials for it; then call navigate again. kind file_chooser with files (names in the server's upload directory): the tab's next file chooser gets them, once; then click the file input again."), t.handlePrompt)
	mcp.AddTool(s, add("snapshot", "List what a user acts on or reads by in a tab, one line each: links, buttons, fields, widgets, headings, with a ref such as e12 (f1e3 in an iframe) that the click, type, select, press, scroll and hover tools take until the page navigates. Iframes are listed after the page. At most 500 elements or 100 KiB at a time: a cut list says how to read on with offset."), t.snapshot)
	mcp.AddTool(s, add("click", "Click an element, by ref from snapshot or by CSS selector (in frame, from list_frames), once it is visible, still, enabled and not covered; the answer says what the click set off: a navigation, a dialog, a download, new tabs. Or, with x and y and no element, click at that point of the tab's viewport (CSS pixels); a file input clicked there opens its chooser, which gets the files handle_prompt gave, or is cancelled, and the result names the files it took. An element that cannot take the click says why first, such as covered by another."), t.click)
	mcp.AddTool(s, add("type", "Type text into a field, by ref from snapshot or by CSS selector, in place of what it holds, and read its value back."), t.typeText)
	mcp.AddTool(s, add("select", "Choose options of a select element, by ref or CSS selector, each by its value or its label."), t.selectOptions)
	mcp.AddTool(s, add("press", "Press a key (Enter, Tab, Escape, ArrowDown, a) on an element by ref or CSS selector, focused first, or on the element that has the focus; the answer says what it set off."), t.press)
	mcp.AddTool(s, add("scroll", "Scroll an element, by ref or CSS selector, into view."), t.scroll)
	mcp.AddTool(s, add("hover", "Move the mouse onto an element, by ref or CSS selector, as a user would, which opens menus and tooltips."), t.hover)
	mcp.AddTool(s, add("list_frames", "List a tab's iframes: each one's frame ID, parent, URL, whether it runs in a process of its own and whether it is still loading, and, when a call in it would fail, why and which tool fixes it. Runs no script in the page."), t.listFrames)
	mcp.AddTool(s, add("get_tab_dom", "Read a tab's HTML, or its visible text, a window at a time: max_bytes (default 40000) from offset of one snapshot of the page; pass back snapshot and next_offset to read on. A CSS selector reads only the elements that match; a frame from list_frames reads that iframe instead of the page."), t.getTabDOM)
	mcp.AddTool(s, add("eval_in_tab", "Run a JavaScript function in a tab, or in one of its iframes (a frame from list_frames), and return its JSON result. A script still running at the deadline is stopped."), t.evalInTab)
	mcp.AddTool(s, add("screenshot", "Capture a tab as a PNG image: its viewport, or with full_page the whole page (refused, with its size, for a page too large to paint in one image). Answers at its deadline even when the tab hangs, saying why and which tool brings it back."), t.screenshot)
	mcp.AddTool(s, add("pdf", fmt.Sprintf("Print a tab to PDF and return the document, up to %d MiB; landscape turns the pages, print_background prints background colors and images. Answers at its deadline even when the tab hangs, saying why and which tool brings it back.", maxCaptureBytes>>20)), t.pdf)
	mcp.AddTool(s, add("recover_tab", "Bring back a tab that does not answer, and say what was wrong and what was done: a JavaScript dialog is dismissed, a crashed tab or a failed load reloaded, a script that holds the page stopped, and a hung renderer crashed and the tab reloaded, keeping its history and cookies. A tab that answers is left alone. Answers even when the tab hangs."), t.recoverTab)
	s.AddReceivingMiddleware(traceTools(tp, names))
	return s, t, nil
}

// tab returns the watcher of tab id: one a tool opened, or a tab the browser
// lists (a popup), which it then watches.
func (t *browserTools) tab(ctx context.Context, id string) (*tabguard.Watcher, error) {
	if id == "" {
		return nil, errors.New("missing tab: pass a tab ID from open_tab or list_tabs")
	}
	t.mu.Lock()
	w, ok := t.tabs[id]
	t.mu.Unlock()
	if ok {
		return w, nil
	}
	for _, ti := range t.bw.Tabs() {
		if string(ti.TargetID) == id {
			w, err := t.bw.WatchTarget(ctx, ti.TargetID)
			if err != nil {
				return nil, err
			}
			return t.keep(w), nil
		}
	}
	return nil, errors.New(errUnknownTab.Error() + " " + id + ": call list_tabs or open_tab")
}

// keep remembers w under its tab ID.
func (t *browserTools) keep(w *tabguard.Watcher) *tabguard.Watcher {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.tabs[string(w.TargetID())]; ok {
		_ = w.Close()
		return old
	}
	t.tabs[string(w.TargetID())] = w
	return w
}

// Close stops watching. The tabs go with the browser.
func (t *browserTools) Close() error { return t.bw.Close() }
