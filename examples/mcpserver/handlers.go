package main

import (
	"context"
	"fmt"

	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/tabstate"
)

func (t *browserTools) listTabs(ctx context.Context, _ *mcp.CallToolRequest, _ ListTabsInput) (*mcp.CallToolResult, ListTabsOutput, error) {
	out := ListTabsOutput{Tabs: []TabInfo{}}
	for _, ti := range t.bw.Tabs() {
		info := TabInfo{Tab: string(ti.TargetID), URL: tabstate.ShownURL(ti.URL), Title: ti.Title, Opener: string(ti.OpenerID), Watched: ti.Watched}
		if ti.Refusal != nil {
			info.Problem = toolError(ti.Refusal).Error()
		}
		out.Tabs = append(out.Tabs, info)
	}
	return nil, out, nil
}

func (t *browserTools) openTab(ctx context.Context, _ *mcp.CallToolRequest, in OpenTabInput) (*mcp.CallToolResult, TabOutput, error) {
	if in.URL == "" {
		return nil, TabOutput{}, fmt.Errorf("missing url: pass the page to open")
	}
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	w, err := t.bw.Open(ctx, in.URL)
	if w == nil {
		return nil, TabOutput{}, toolError(err)
	}
	t.keep(w)
	if err == nil {
		err = loaded(ctx, w)
	}
	if err != nil {
		return nil, TabOutput{}, fmt.Errorf("tab %s: %w", w.TargetID(), toolError(err))
	}
	return nil, TabOutput{Tab: string(w.TargetID()), URL: tabstate.ShownURL(w.State().URL)}, nil
}

func (t *browserTools) navigate(ctx context.Context, _ *mcp.CallToolRequest, in NavigateInput) (*mcp.CallToolResult, TabOutput, error) {
	return t.load(ctx, in.Tab, func(ctx context.Context, w *tabguard.Watcher) error { return w.Navigate(ctx, in.URL) })
}

func (t *browserTools) reloadTab(ctx context.Context, _ *mcp.CallToolRequest, in TabInput) (*mcp.CallToolResult, TabOutput, error) {
	return t.load(ctx, in.Tab, func(ctx context.Context, w *tabguard.Watcher) error { return w.Reload(ctx) })
}

// load runs a navigation on a tab and waits for the page's load event.
func (t *browserTools) load(ctx context.Context, id string, nav func(context.Context, *tabguard.Watcher) error) (*mcp.CallToolResult, TabOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	w, err := t.tab(ctx, id)
	if err == nil {
		err = nav(ctx, w)
	}
	if err == nil {
		err = loaded(ctx, w)
	}
	if err != nil {
		return nil, TabOutput{}, toolError(err)
	}
	return nil, TabOutput{Tab: id, URL: w.State().URL}, nil
}

// loaded waits for the page's load event, or the refusal that prevents it.
func loaded(ctx context.Context, w *tabguard.Watcher) error {
	_, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	return err
}

func (t *browserTools) closeTab(ctx context.Context, _ *mcp.CallToolRequest, in TabInput) (*mcp.CallToolResult, TabOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, TabOutput{}, toolError(err)
	}
	t.mu.Lock()
	delete(t.tabs, in.Tab)
	t.mu.Unlock()
	t.prompts.Forget(in.Tab)
	t.snaps.Forget(in.Tab)
	if err := w.CloseTab(ctx); err != nil {
		return nil, TabOutput{}, toolError(err)
	}
	return nil, TabOutput{Tab: in.Tab}, nil
}

func (t *browserTools) handleDialog(ctx context.Context, _ *mcp.CallToolRequest, in HandleDialogInput) (*mcp.CallToolResult, TabOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err == nil {
		err = w.HandleDialog(ctx, in.Accept, in.PromptText)
	}
	if err != nil {
		return nil, TabOutput{}, toolError(err)
	}
	return nil, TabOutput{Tab: in.Tab, URL: w.State().URL}, nil
}

func (t *browserTools) getTabDOM(ctx context.Context, _ *mcp.CallToolRequest, in GetTabDOMInput) (*mcp.CallToolResult, GetTabDOMOutput, error) {
	max := in.MaxBytes
	switch {
	case max == 0:
		max = defaultMaxBytes
	case max < 4 || max > maxMaxBytes:
		return nil, GetTabDOMOutput{}, fmt.Errorf("max_bytes %d: pass 4 to %d, or leave it out for %d", in.MaxBytes, maxMaxBytes, defaultMaxBytes)
	}
	if in.Offset < 0 || in.Offset > 0 && in.Snapshot == "" {
		return nil, GetTabDOMOutput{}, fmt.Errorf("offset %d: pass the snapshot and next_offset of an earlier get_tab_dom", in.Offset)
	}
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, GetTabDOMOutput{}, toolError(err)
	}
	opts := tabguard.DOMOptions{MaxBytes: max, Snapshot: in.Snapshot, Offset: in.Offset, Selector: in.Selector, Text: in.Text, Frame: in.Frame}
	var win tabguard.DOMWindow
	if in.Frame != "" {
		win, err = t.readFrameDOM(ctx, w, opts)
	} else {
		win, err = w.ReadDOM(ctx, opts)
	}
	if err != nil {
		return nil, GetTabDOMOutput{}, toolError(err)
	}
	content := win.Content
	if win.NextOffset != 0 {
		content += "\n" + notice(win, max, in.Frame)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: content}}}
	return res, GetTabDOMOutput{Snapshot: win.Snapshot, Offset: win.Offset, NextOffset: win.NextOffset, Size: win.Size, Changed: win.Changed}, nil
}

// notice words the end of a cut window in the tool's own terms; frame is
// the iframe it came from, if any, which the next call names again.
func notice(win tabguard.DOMWindow, max int, frame string) string {
	of := ""
	if win.Size >= 0 {
		of = fmt.Sprintf(" of %d", win.Size)
	}
	in := ""
	if frame != "" {
		in = fmt.Sprintf("frame %q, ", frame)
	}
	return fmt.Sprintf("<!-- cut: bytes %d-%d%s (max_bytes %d); to read on, call get_tab_dom with %ssnapshot %q and offset %d -->",
		win.Offset, win.Offset+len(win.Content), of, max, in, win.Snapshot, win.NextOffset)
}

func (t *browserTools) evalInTab(ctx context.Context, _ *mcp.CallToolRequest, in EvalInTabInput) (*mcp.CallToolResult, EvalInTabOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, EvalInTabOutput{}, toolError(err)
	}
	var res *proto.RuntimeRemoteObject
	if in.Frame != "" {
		res, err = t.evalInFrame(ctx, w, in.Frame, in.JS)
	} else {
		res, err = w.Eval(ctx, in.JS)
	}
	if err != nil {
		return nil, EvalInTabOutput{}, toolError(err)
	}
	return nil, EvalInTabOutput{Value: res.Value.Val()}, nil
}
