package main

import (
	"net/http"

	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/tabstate"
)

// handleClick serves POST /browser/click: it presses and releases the
// left button at X, Y, as a user would, in one guarded call
// (agentprompt.Click). A file input clicked opens its chooser, which the
// watcher answers: with the files POST /browser/prompt gave the tab, or
// cancelled. The call awaits what the input hears, so a cancelled chooser
// answers ErrFileChooser, naming POST /browser/prompt.
func (s *Server) handleClick(w http.ResponseWriter, r *http.Request) {
	req, t, ok := decodeTab[ClickRequest](s, w, r)
	if !ok {
		return
	}
	c, err := agentprompt.Click(r.Context(), t, req.X, req.Y)
	if err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, ClickResponse{Tab: req.Tab, URL: tabstate.ShownURL(t.State().URL), Tag: c.Tag, Files: c.Files})
}
