package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
)

// Kinds of handle_prompt.
const (
	kindSignIn      = "sign_in"
	kindFileChooser = "file_chooser"
)

// promptState is what handle_prompt set on each tab: the origins whose
// sign-ins the server may answer there, and the files for its next file
// chooser. The watchers' callbacks read it; nothing else gives a page
// credentials or files.
type promptState struct {
	cfg promptConfig

	mu      sync.Mutex
	signIns map[string]map[string]bool // tab ID -> origins allowed
	files   map[string][]string        // tab ID -> absolute paths for its next chooser
}

// allowSignIn lets the server answer tab's sign-ins at origin.
func (p *promptState) allowSignIn(tab, origin string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.signIns[tab] == nil {
		p.signIns[tab] = map[string]bool{}
	}
	p.signIns[tab][origin] = true
}

// credentials are the configured credentials of origin when handle_prompt
// allowed it on tab, and none otherwise.
func (p *promptState) credentials(tab, origin string) tabguard.Credentials {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.signIns[tab][origin] {
		return tabguard.Credentials{}
	}
	return p.cfg.credentials[origin]
}

// setFiles gives tab's next file chooser files, replacing any not taken.
func (p *promptState) setFiles(tab string, files []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[tab] = files
}

// takeFiles returns the files for tab's next chooser, once.
func (p *promptState) takeFiles(tab string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	files := p.files[tab]
	delete(p.files, tab)
	return files
}

// forget drops what was set on tab, which is gone.
func (p *promptState) forget(tab string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.signIns, tab)
	delete(p.files, tab)
}

// signIn is the watchers' Options.Credentials: the configured credentials
// of the origin that asks, when handle_prompt allowed it on the tab whose
// page or iframe asks; otherwise none, and the page reads
// ErrSignInRequired. A proxy never gets a site's credentials.
func (t *browserTools) signIn(_ context.Context, s tabguard.SignIn) (tabguard.Credentials, error) {
	origin, err := normalOrigin(s.Origin)
	if s.Proxy || err != nil {
		return tabguard.Credentials{}, nil
	}
	return t.prompts.credentials(t.tabOf(s.FrameID), origin), nil
}

// chooseFiles is the watchers' Options.FileChooser: the files handle_prompt
// gave the tab whose page or iframe opened the chooser, once; with none,
// the chooser is cancelled.
func (t *browserTools) chooseFiles(_ context.Context, c tabguard.FileChooser) ([]string, error) {
	return t.prompts.takeFiles(t.tabOf(c.FrameID)), nil
}

// tabOf returns the ID of the watched tab that holds frame: the tab
// itself (its main frame has the tab's ID) or one with that iframe; ""
// when none does.
func (t *browserTools) tabOf(frame string) string {
	t.mu.Lock()
	tabs := maps.Clone(t.tabs)
	t.mu.Unlock()
	if _, ok := tabs[frame]; ok {
		return frame
	}
	for id, w := range tabs {
		for _, f := range w.Frames() {
			if f.ID == frame {
				return id
			}
		}
	}
	return ""
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
		origin, err := t.signInOrigin(in.Origin)
		if err != nil {
			return nil, HandlePromptOutput{}, err
		}
		t.prompts.allowSignIn(tab, origin)
		return nil, HandlePromptOutput{Tab: tab, Kind: in.Kind, Origin: origin,
			Next: "call navigate (or reload_tab) to load the page again: its sign-in at " + origin + " is answered with the server's credentials"}, nil
	case kindFileChooser:
		if in.Origin != "" {
			return nil, HandlePromptOutput{}, errors.New("origin is for kind sign_in: pass only files with kind file_chooser")
		}
		if len(in.Files) == 0 {
			return nil, HandlePromptOutput{}, errors.New("missing files: pass the names of files in the server's upload directory")
		}
		paths := make([]string, len(in.Files))
		for i, name := range in.Files {
			if paths[i], err = uploadPath(t.prompts.cfg.uploadDir, name); err != nil {
				return nil, HandlePromptOutput{}, err
			}
		}
		t.prompts.setFiles(tab, paths)
		return nil, HandlePromptOutput{Tab: tab, Kind: in.Kind, Files: in.Files,
			Next: "click the file input again (click): its chooser gets these files, once"}, nil
	}
	return nil, HandlePromptOutput{}, fmt.Errorf("kind %q: pass sign_in (with origin) or file_chooser (with files)", in.Kind)
}

// signInOrigin checks that raw is an origin the server has credentials
// for, and returns it as the watchers' callback will see it.
func (t *browserTools) signInOrigin(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("missing origin: pass the origin the sign-in error names, such as http://127.0.0.1:8080")
	}
	origin, err := normalOrigin(raw)
	if err != nil {
		return "", err
	}
	if _, ok := t.prompts.cfg.credentials[origin]; !ok {
		known := slices.Sorted(maps.Keys(t.prompts.cfg.credentials))
		if len(known) == 0 {
			return "", fmt.Errorf("no credentials for %s: the server has none (-credentials), so it signs in nowhere: call navigate for another page", origin)
		}
		return "", fmt.Errorf("no credentials for %s: the server signs in only at %s: call navigate for another page", origin, strings.Join(known, ", "))
	}
	return origin, nil
}
