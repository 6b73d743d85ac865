package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
)

// loadTimeout bounds open_tab, which waits for the page's load event.
const loadTimeout = 60 * time.Second

// errUnknownTab is the tool error for a tab ID the server does not know.
var errUnknownTab = errors.New("unknown tab")

// OpenTabInput is the input of open_tab.
type OpenTabInput struct {
	URL string `json:"url" jsonschema:"the page to open"`
}

// OpenTabOutput is the result of open_tab.
type OpenTabOutput struct {
	Tab string `json:"tab" jsonschema:"the tab ID to pass to the other tools"`
}

// GetTabDOMInput is the input of get_tab_dom.
type GetTabDOMInput struct {
	Tab      string `json:"tab" jsonschema:"the tab ID from open_tab"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"cap on the HTML returned, in bytes; default 102400"`
}

// GetTabDOMOutput is the structured result of get_tab_dom; the HTML itself,
// with a truncation notice when cut, is the text content.
type GetTabDOMOutput struct {
	Size      int  `json:"size" jsonschema:"the byte size of the whole page HTML"`
	Truncated bool `json:"truncated" jsonschema:"whether the HTML was cut at max_bytes"`
}

// EvalInTabInput is the input of eval_in_tab.
type EvalInTabInput struct {
	Tab string `json:"tab" jsonschema:"the tab ID from open_tab"`
	JS  string `json:"js" jsonschema:"a JavaScript function such as () => document.title; a returned promise is awaited"`
}

// EvalInTabOutput is the result of eval_in_tab.
type EvalInTabOutput struct {
	Value any `json:"value" jsonschema:"the function's result as JSON"`
}

// maxBytesNotice words the truncation notice in the tool's own terms: the
// cap is get_tab_dom's max_bytes.
func maxBytesNotice(shown, size, maxBytes int) string {
	return fmt.Sprintf("<!-- truncated: showing %d of %d bytes (max_bytes %d); call get_tab_dom with a larger max_bytes to see more -->", shown, size, maxBytes)
}

// browserTools serves the tools over one rod browser, which one
// tabguard.BrowserWatcher follows, with a tabguard.Watcher from it for each
// tab it opened.
type browserTools struct {
	browser *rod.Browser
	bw      *tabguard.BrowserWatcher

	mu   sync.Mutex
	tabs map[string]*tab
}

type tab struct {
	page *rod.Page
	w    *tabguard.Watcher
}

// newServer returns an MCP server with the browser tools over b; opts
// configures each tab's watcher and may be nil. The caller should call
// Close on the returned tools when finished.
func newServer(b *rod.Browser, opts *tabguard.Options) (*mcp.Server, *browserTools, error) {
	o := tabguard.Options{}
	if opts != nil {
		o = *opts
	}
	if o.DOMNotice == nil {
		o.DOMNotice = maxBytesNotice
	}
	bw, err := tabguard.WatchBrowser(b, &o)
	if err != nil {
		return nil, nil, err
	}
	t := &browserTools{browser: b, bw: bw, tabs: map[string]*tab{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "tabguard-browser", Version: "v0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "open_tab", Description: "Open a browser tab at a URL and wait for it to load."}, t.openTab)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_tab_dom",
		Description: "Return a tab's HTML, cut at max_bytes (default 100 KB) with a notice naming the full size.",
	}, t.getTabDOM)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "eval_in_tab",
		Description: "Run a JavaScript function in a tab and return its JSON result. Fails fast, with the reason, on a crashed or dead tab.",
	}, t.evalInTab)
	return s, t, nil
}

func (t *browserTools) openTab(ctx context.Context, _ *mcp.CallToolRequest, in OpenTabInput) (*mcp.CallToolResult, OpenTabOutput, error) {
	if in.URL == "" {
		return nil, OpenTabOutput{}, errors.New("missing url: pass the page to open")
	}
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(t.browser.Context(ctx))
	if err != nil {
		return nil, OpenTabOutput{}, fmt.Errorf("open tab: %w", err)
	}
	page, err := t.browser.PageFromTarget(target.TargetID)
	if err != nil {
		return nil, OpenTabOutput{}, fmt.Errorf("attach to tab: %w", err)
	}
	w, err := t.bw.Watch(page)
	if err != nil {
		return nil, OpenTabOutput{}, fmt.Errorf("watch tab: %w", err)
	}
	id := string(target.TargetID)
	t.mu.Lock()
	t.tabs[id] = &tab{page: page, w: w}
	t.mu.Unlock()

	err = w.Navigate(ctx, in.URL)
	if err == nil {
		_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, OpenTabOutput{}, fmt.Errorf("tab %s: load %s: not loaded within %v: %w", id, in.URL, loadTimeout, err)
		}
		return nil, OpenTabOutput{}, fmt.Errorf("tab %s: load %s: %w", id, in.URL, err)
	}
	return nil, OpenTabOutput{Tab: id}, nil
}

func (t *browserTools) getTabDOM(ctx context.Context, _ *mcp.CallToolRequest, in GetTabDOMInput) (*mcp.CallToolResult, GetTabDOMOutput, error) {
	tb, err := t.tab(in.Tab)
	if err != nil {
		return nil, GetTabDOMOutput{}, err
	}
	if in.MaxBytes < 0 {
		return nil, GetTabDOMOutput{}, fmt.Errorf("max_bytes %d: pass a positive byte count, or leave it out for %d", in.MaxBytes, tabguard.DefaultMaxDOMBytes)
	}
	d, err := tb.w.DOM(ctx, in.MaxBytes)
	if err != nil {
		return nil, GetTabDOMOutput{}, err // the real reason: "tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)"
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: d.HTML}}}
	return res, GetTabDOMOutput{Size: d.Size, Truncated: d.Truncated}, nil
}

func (t *browserTools) evalInTab(ctx context.Context, _ *mcp.CallToolRequest, in EvalInTabInput) (*mcp.CallToolResult, EvalInTabOutput, error) {
	tb, err := t.tab(in.Tab)
	if err != nil {
		return nil, EvalInTabOutput{}, err
	}
	res, err := tb.w.Eval(ctx, in.JS)
	if err != nil {
		return nil, EvalInTabOutput{}, err
	}
	return nil, EvalInTabOutput{Value: res.Value.Val()}, nil
}

// tab returns the open tab with the given ID.
func (t *browserTools) tab(id string) (*tab, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tb, ok := t.tabs[id]
	if !ok {
		return nil, fmt.Errorf("%w %q: open one with open_tab", errUnknownTab, id)
	}
	return tb, nil
}

// Close stops every watcher and closes the tabs the tools opened.
func (t *browserTools) Close() error {
	t.mu.Lock()
	tabs := t.tabs
	t.tabs = map[string]*tab{}
	t.mu.Unlock()
	errs := []error{t.bw.Close()}
	for _, tb := range tabs {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := (proto.TargetCloseTarget{TargetID: tb.page.TargetID}).Call(t.browser.Context(ctx)); err != nil {
			errs = append(errs, fmt.Errorf("close tab %s: %w", tb.page.TargetID, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}
