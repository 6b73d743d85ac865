package main

import (
	"maps"
	"net/http"

	"github.com/tabguard/tabguard/internal/agentprompt"
)

// Kinds of POST /browser/prompt.
const (
	kindSignIn      = "sign_in"
	kindFileChooser = "file_chooser"
)

// tabOf returns the ID of the watched tab that holds frame, or "": the
// prompt state's way from a frame that asks to the tab it was set on.
func (s *Server) tabOf(frame string) string {
	s.mu.Lock()
	tabs := maps.Clone(s.tabs)
	s.mu.Unlock()
	return agentprompt.TabOf(tabs, frame)
}

// handlePrompt serves POST /browser/prompt: with kind sign_in and an
// origin, the server answers the tab's sign-ins there with its configured
// credentials; with kind file_chooser and files (names inside the upload
// directory), the tab's next file chooser gets them, once. The answer says
// what was set, never a credential.
func (s *Server) handlePrompt(w http.ResponseWriter, r *http.Request) {
	req, t, ok := decodeTab[PromptRequest](s, w, r)
	if !ok {
		return
	}
	tab := string(t.TargetID())
	out := PromptResponse{Tab: tab, Kind: req.Kind}
	var err error
	switch req.Kind {
	case kindSignIn:
		if len(req.Files) > 0 {
			writeError(w, badRequest("files are for kind file_chooser: pass only origin with kind sign_in"), "")
			return
		}
		if out.Origin, err = s.prompts.Config().SignInOrigin(req.Origin, "POST /browser/navigate to another page"); err != nil {
			writeError(w, badRequest("%v", err), "")
			return
		}
		s.prompts.AllowSignIn(tab, out.Origin)
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
	paths, err := s.prompts.Config().UploadPaths(req.Files)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	s.prompts.SetFiles(req.Tab, paths)
	return req.Files, nil
}
