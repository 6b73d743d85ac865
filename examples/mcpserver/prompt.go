package main

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// Kinds of handle_prompt.
const (
	kindSignIn      = "sign_in"
	kindFileChooser = "file_chooser"
)

// tabOf returns the ID of the watched tab that holds frame, or "": the
// prompt state's way from a frame that asks to the tab it was set on.
func (t *browserTools) tabOf(frame string) string {
	t.mu.Lock()
	tabs := maps.Clone(t.tabs)
	t.mu.Unlock()
	return agentprompt.TabOf(tabs, frame)
}

func (t *browserTools) handlePrompt(ctx context.Context, _ *mcp.CallToolRequest, in HandlePromptInput) (*mcp.CallToolResult, HandlePromptOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, HandlePromptOutput{}, toolError(err)
	}
	tab := string(w.TargetID())
	switch in.Kind {
	case kindSignIn:
		if len(in.Files) > 0 {
			return nil, HandlePromptOutput{}, errors.New("files are for kind file_chooser: pass only origin with kind sign_in")
		}
		origin, err := t.prompts.Config().SignInOrigin(in.Origin, "call navigate for another page")
		if err != nil {
			return nil, HandlePromptOutput{}, err
		}
		t.prompts.AllowSignIn(tab, origin)
		return nil, HandlePromptOutput{Tab: tab, Kind: in.Kind, Origin: origin,
			Next: "call navigate (or reload_tab) to load the page again: its sign-in at " + origin + " is answered with the server's credentials"}, nil
	case kindFileChooser:
		if in.Origin != "" {
			return nil, HandlePromptOutput{}, errors.New("origin is for kind sign_in: pass only files with kind file_chooser")
		}
		if len(in.Files) == 0 {
			return nil, HandlePromptOutput{}, errors.New("missing files: pass the names of files in the server's upload directory")
		}
		paths, err := t.prompts.Config().UploadPaths(in.Files)
		if err != nil {
			return nil, HandlePromptOutput{}, err
		}
		t.prompts.SetFiles(tab, paths)
		return nil, HandlePromptOutput{Tab: tab, Kind: in.Kind, Files: in.Files,
			Next: "click the file input again (click): its chooser gets these files, once"}, nil
	}
	return nil, HandlePromptOutput{}, fmt.Errorf("kind %q: pass sign_in (with origin) or file_chooser (with files)", in.Kind)
}
