package main

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/tabguard/tabguard"
)

// Kinds of POST /browser/prompt.
const (
	kindSignIn      = "sign_in"
	kindFileChooser = "file_chooser"
)

// promptState is what POST /browser/prompt set on each tab: the origins
// whose sign-ins the server may answer there, and the files for its next
// file chooser. The watchers' callbacks read it; nothing else gives a page
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

// credentials are the configured credentials of origin when
// POST /browser/prompt allowed it on tab, and none otherwise.
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
// of the origin that asks, when POST /browser/prompt allowed it on the tab
// whose page or iframe asks; otherwise none, and the page reads
// ErrSignInRequired. A proxy never gets a site's credentials.
func (s *Server) signIn(_ context.Context, si tabguard.SignIn) (tabguard.Credentials, error) {
	origin, err := normalOrigin(si.Origin)
	if si.Proxy || err != nil {
		return tabguard.Credentials{}, nil
	}
	return s.prompts.credentials(s.tabOf(si.FrameID), origin), nil
}

// chooseFiles is the watchers' Options.FileChooser: the files
// POST /browser/prompt gave the tab whose page or iframe opened the
// chooser, once; with none, the chooser is cancelled.
func (s *Server) chooseFiles(_ context.Context, c tabguard.FileChooser) ([]string, error) {
	return s.prompts.takeFiles(s.tabOf(c.FrameID)), nil
}

// tabOf returns the ID of the watched tab that holds frame: the tab
// itself (its main frame has the tab's ID) or one with that iframe; ""
// when none does.
func (s *Server) tabOf(frame string) string {
	s.mu.Lock()
	tabs := maps.Clone(s.tabs)
	s.mu.Unlock()
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

// handlePrompt serves POST /browser/prompt: with kind sign_in and an
// origin, the server answers the tab's sign-ins there with its configured
// credentials; with kind file_chooser and files (names inside the upload
// directory), the tab's next file chooser gets them, once. The answer says
// what was set, never a credential.
func (s *Server) handlePrompt(w http.ResponseWriter, r *http.Request) {
	var req PromptRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	t, err := s.tab(r.Context(), req.Tab)
	if err != nil {
		writeError(w, err, "")
		return
	}
	tab := string(t.TargetID())
	out := PromptResponse{Tab: tab, Kind: req.Kind}
	switch req.Kind {
	case kindSignIn:
		if len(req.Files) > 0 {
			writeError(w, badRequest("files are for kind file_chooser: pass only origin with kind sign_in"), "")
			return
		}
		if out.Origin, err = s.signInOrigin(req.Origin); err != nil {
			writeError(w, err, "")
			return
		}
		s.prompts.allowSignIn(tab, out.Origin)
		out.Next = "POST /browser/navigate (or /browser/reload) to load the page again: its sign-in at " + out.Origin + " is answered with the server's credentials"
	case kindFileChooser:
		if out.Files, err = s.uploadPaths(req); err != nil {
			writeError(w, err, "")
			return
		}
		out.Next = "POST /browser/click on the file input again: its chooser gets these files, once"
	default:
		writeError(w, badRequest("kind %q: pass sign_in (with origin) or file_chooser (with files)", req.Kind), "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// uploadPaths checks req's files and gives them to its tab's next chooser;
// it returns the names as given.
func (s *Server) uploadPaths(req PromptRequest) ([]string, error) {
	if req.Origin != "" {
		return nil, badRequest("origin is for kind sign_in: pass only files with kind file_chooser")
	}
	if len(req.Files) == 0 {
		return nil, badRequest("missing files: pass the names of files in the server's upload directory")
	}
	paths := make([]string, len(req.Files))
	for i, name := range req.Files {
		p, err := uploadPath(s.prompts.cfg.uploadDir, name)
		if err != nil {
			return nil, badRequest("%v", err)
		}
		paths[i] = p
	}
	s.prompts.setFiles(req.Tab, paths)
	return req.Files, nil
}

// signInOrigin checks that raw is an origin the server has credentials
// for, and returns it as the watchers' callback will see it.
func (s *Server) signInOrigin(raw string) (string, error) {
	if raw == "" {
		return "", badRequest("missing origin: pass the origin the sign-in error names, such as http://127.0.0.1:8080")
	}
	origin, err := normalOrigin(raw)
	if err != nil {
		return "", badRequest("%v", err)
	}
	if _, ok := s.prompts.cfg.credentials[origin]; !ok {
		known := slices.Sorted(maps.Keys(s.prompts.cfg.credentials))
		if len(known) == 0 {
			return "", badRequest("no credentials for %s: the server has none (-credentials), so it signs in nowhere: POST /browser/navigate to another page", origin)
		}
		return "", badRequest("no credentials for %s: the server signs in only at %s: POST /browser/navigate to another page", origin, strings.Join(known, ", "))
	}
	return origin, nil
}
