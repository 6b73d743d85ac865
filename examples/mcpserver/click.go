package main

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/tabstate"
)

// click clicks the element in.Ref or in.Selector names as Watcher.Act
// does, checking first that it is there to take the click, or, given
// neither, presses and releases the left button at in.X, in.Y, as a user
// would, in one guarded call (agentprompt.Click). A file input clicked at
// a point opens its chooser, which the watcher answers: with the files
// handle_prompt gave the tab, or cancelled. That call awaits what the
// input hears, so a cancelled chooser answers ErrFileChooser, worded with
// handle_prompt.
func (t *browserTools) click(ctx context.Context, _ *mcp.CallToolRequest, in ClickInput) (*mcp.CallToolResult, ClickOutput, error) {
	if in.Ref != "" || in.Selector != "" {
		if in.X != nil || in.Y != nil {
			return nil, ClickOutput{}, errors.New("both an element and x, y given: pass ref or selector, or x and y for a point")
		}
		res, out, err := t.act(ctx, in.Tab, tabguard.Action{Kind: tabguard.ActionClick, Ref: in.Ref, Selector: in.Selector, Frame: in.Frame})
		return res, ClickOutput{Tab: out.Tab, URL: out.URL, Tag: tagOf(out.Element), ActResult: out.ActResult}, err
	}
	if in.X == nil || in.Y == nil {
		return nil, ClickOutput{}, errors.New("missing ref, selector or x and y: pass a ref from the snapshot tool, a CSS selector, or a point")
	}
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, ClickOutput{}, toolError(err)
	}
	c, err := agentprompt.Click(ctx, w, *in.X, *in.Y)
	if err != nil {
		return nil, ClickOutput{}, toolError(err)
	}
	return nil, ClickOutput{Tab: in.Tab, URL: tabstate.ShownURL(w.State().URL), Tag: c.Tag, Files: c.Files}, nil
}
