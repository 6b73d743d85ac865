package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/tabstate"
)

// snapshot lists the tab's elements with their refs (Watcher.Snapshot),
// leaving out the iframes the URL policy refuses. The text is what the
// agent reads: one line an element, the frames left out, and, when a cap
// cut the list, how to read on with this tool.
func (t *browserTools) snapshot(ctx context.Context, _ *mcp.CallToolRequest, in SnapshotInput) (*mcp.CallToolResult, SnapshotOutput, error) {
	if in.Offset < 0 {
		return nil, SnapshotOutput{}, fmt.Errorf("offset %d: pass the next_offset of an earlier snapshot, or leave it out", in.Offset)
	}
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, SnapshotOutput{}, toolError(err)
	}
	snap, err := t.snaps.Take(ctx, w, tabguard.SnapshotOptions{Frame: in.Frame, Selector: in.Selector, Offset: in.Offset})
	if err != nil {
		return nil, SnapshotOutput{}, toolError(err)
	}
	out := SnapshotOutput{Tab: in.Tab, URL: tabstate.ShownURL(w.State().URL), Shown: snap.Shown, Total: snap.Total, Offset: snap.Offset, NextOffset: snap.NextOffset}
	for _, f := range snap.Skipped {
		out.Skipped = append(out.Skipped, SkippedFrameOf{Frame: f.ID, URL: tabstate.ShownURL(f.URL), Reason: f.Reason})
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: snapshotText(snap, in)}}}
	return res, out, nil
}

// snapshotText is the snapshot as the agent reads it, its notice in this
// tool's terms.
func snapshotText(snap tabguard.Snapshot, in SnapshotInput) string {
	text := strings.TrimSuffix(snap.String(), snap.Notice()+"\n")
	if snap.Shown == 0 && snap.NextOffset == 0 {
		text += "no elements to act on or read by\n"
	}
	if snap.NextOffset == 0 {
		return text
	}
	with := ""
	if in.Frame != "" {
		with += "frame " + strconv.Quote(in.Frame) + ", "
	}
	if in.Selector != "" {
		with += "selector " + strconv.Quote(in.Selector) + ", "
	}
	return text + fmt.Sprintf("showing elements %d-%d of %d: to read on, call snapshot with %soffset %d\n",
		snap.Offset+1, snap.Offset+snap.Shown, snap.Total, with, snap.NextOffset)
}

// act does a on tab as a user would (Watcher.Act), once the server's URL
// policy lets it into the element's frame, and answers what it did and
// what it set off.
func (t *browserTools) act(ctx context.Context, tab string, a tabguard.Action) (*mcp.CallToolResult, ActOutput, error) {
	if a.Ref == "" && a.Selector == "" && a.Kind != tabguard.ActionPress {
		return nil, ActOutput{}, errors.New("missing ref or selector: pass a ref from the snapshot tool, or a CSS selector")
	}
	if a.Ref != "" && a.Selector != "" {
		return nil, ActOutput{}, errors.New("both ref and selector given: pass one")
	}
	w, err := t.tab(ctx, tab)
	if err != nil {
		return nil, ActOutput{}, toolError(err)
	}
	if err := t.snaps.Check(w, a); err != nil {
		return nil, ActOutput{}, toolError(err)
	}
	acted, err := w.Act(ctx, a)
	if err != nil {
		return nil, ActOutput{}, toolError(err)
	}
	out := ActOutput{Tab: tab, URL: tabstate.ShownURL(w.State().URL), ActResult: actResult(acted)}
	text := out.Done
	if out.Next != "" {
		text += "\n" + out.Next
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// actResult is a in the tools' terms, with what to do about what it set
// off, each with the tool that does it.
func actResult(a tabguard.Acted) ActResult {
	r := ActResult{Done: a.String(), Element: a.Element, Received: a.Received, Value: a.Value, NewTabs: a.NewTabs}
	var next []string
	if n := a.Navigation; n != nil {
		r.Navigation = &NavigationInfo{URL: tabstate.ShownURL(n.URL), State: "pending", Error: n.Error}
		switch {
		case n.Error != "":
			r.Navigation.State = "failed"
			next = append(next, "the load failed: call list_tabs to see whether the tab still answers, and navigate or reload_tab if not")
		case n.Committed:
			r.Navigation.State = "committed"
			next = append(next, "the tab shows the new page: refs of the old one are stale; call snapshot for fresh ones")
		default:
			next = append(next, "the tab is loading the new page: call snapshot for its refs once it has loaded; refs of this page will be stale")
		}
	}
	if d := a.Dialog; d != nil {
		r.Dialog = &DialogInfo{Type: d.Type, Message: d.Message}
		next = append(next, "the "+d.Type+" dialog refuses the tab's calls until you call handle_dialog (accept true or false)")
	}
	if d := a.Download; d != nil {
		r.Download = &DownloadInfo{Name: d.Name, URL: tabstate.ShownURL(d.URL), State: d.State}
		next = append(next, "the server saves no downloads: the file is not kept")
	}
	for _, id := range a.NewTabs {
		next = append(next, "tab "+id+" opened: pass it as tab to the tools (list_tabs lists it)")
	}
	r.Next = strings.Join(next, "; ")
	return r
}

func (t *browserTools) typeText(ctx context.Context, _ *mcp.CallToolRequest, in TypeInput) (*mcp.CallToolResult, ActOutput, error) {
	return t.act(ctx, in.Tab, tabguard.Action{Kind: tabguard.ActionFill, Ref: in.Ref, Selector: in.Selector, Frame: in.Frame, Text: in.Text})
}

func (t *browserTools) selectOptions(ctx context.Context, _ *mcp.CallToolRequest, in SelectInput) (*mcp.CallToolResult, ActOutput, error) {
	if len(in.Values) == 0 {
		return nil, ActOutput{}, errors.New("missing values: pass the value or the label of each option to choose")
	}
	return t.act(ctx, in.Tab, tabguard.Action{Kind: tabguard.ActionSelect, Ref: in.Ref, Selector: in.Selector, Frame: in.Frame, Values: in.Values})
}

func (t *browserTools) press(ctx context.Context, _ *mcp.CallToolRequest, in PressInput) (*mcp.CallToolResult, ActOutput, error) {
	if in.Key == "" {
		return nil, ActOutput{}, errors.New("missing key: pass a key such as Enter, Tab, Escape or a")
	}
	return t.act(ctx, in.Tab, tabguard.Action{Kind: tabguard.ActionPress, Ref: in.Ref, Selector: in.Selector, Frame: in.Frame, Key: in.Key})
}

func (t *browserTools) scroll(ctx context.Context, _ *mcp.CallToolRequest, in ElementInput) (*mcp.CallToolResult, ActOutput, error) {
	return t.act(ctx, in.Tab, tabguard.Action{Kind: tabguard.ActionScroll, Ref: in.Ref, Selector: in.Selector, Frame: in.Frame})
}

func (t *browserTools) hover(ctx context.Context, _ *mcp.CallToolRequest, in ElementInput) (*mcp.CallToolResult, ActOutput, error) {
	return t.act(ctx, in.Tab, tabguard.Action{Kind: tabguard.ActionHover, Ref: in.Ref, Selector: in.Selector, Frame: in.Frame})
}

// tagOf is the tag name of an element as Acted shows it, `<button id="buy">`.
func tagOf(el string) string {
	el = strings.TrimPrefix(el, "<")
	if i := strings.IndexAny(el, " >"); i >= 0 {
		el = el[:i]
	}
	return el
}
