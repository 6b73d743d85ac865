package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/tabstate"
)

// click presses and releases the left button at in.X, in.Y, as a user
// would, in one guarded call (agentprompt.Click). A file input clicked opens its
// chooser, which the watcher answers: with the files handle_prompt gave
// the tab, or cancelled. The call awaits what the input hears, so a
// cancelled chooser answers ErrFileChooser, worded with handle_prompt.
func (t *browserTools) click(ctx context.Context, _ *mcp.CallToolRequest, in ClickInput) (*mcp.CallToolResult, ClickOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, ClickOutput{}, toolError(err)
	}
	c, err := agentprompt.Click(ctx, w, in.X, in.Y)
	if err != nil {
		return nil, ClickOutput{}, toolError(err)
	}
	return nil, ClickOutput{Tab: in.Tab, URL: tabstate.ShownURL(w.State().URL), Tag: c.Tag, Files: c.Files}, nil
}
