package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

const scrollJS = `(dx, dy) => { window.scrollBy(dx, dy); return {x: window.scrollX, y: window.scrollY}; }`

const underCursorJS = `(x, y) => {
	const el = document.elementFromPoint(x, y);
	return el ? {tag: el.tagName.toLowerCase(), text: (el.innerText || '').trim().slice(0, 80)} : {tag: ''};
}`

func (s *Server) handleTabs(w http.ResponseWriter, r *http.Request) {
	out := TabsResponse{Tabs: []TabInfo{}}
	for _, ti := range s.bw.Tabs() {
		out.Tabs = append(out.Tabs, tabInfo(ti))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleOpen(w http.ResponseWriter, r *http.Request) {
	var req OpenRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	id, err := s.Open(r.Context(), req.URL)
	if err != nil {
		writeError(w, err, id)
		return
	}
	writeJSON(w, http.StatusOK, OpenResponse{Tab: id})
}

func (s *Server) handleNavigate(w http.ResponseWriter, r *http.Request) {
	var req NavigateRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	if req.URL == "" {
		writeError(w, badRequest("missing url: pass the page to load"), "")
		return
	}
	s.serveLoad(w, r, req.Tab, func(ctx context.Context, t *tabguard.Watcher) error { return t.Navigate(ctx, req.URL) })
}

func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	var req TabRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	s.serveLoad(w, r, req.Tab, func(ctx context.Context, t *tabguard.Watcher) error { return t.Reload(ctx) })
}

// serveLoad runs a navigation and answers once the page has loaded.
func (s *Server) serveLoad(w http.ResponseWriter, r *http.Request, id string, nav func(context.Context, *tabguard.Watcher) error) {
	t, err := s.load(r.Context(), id, nav)
	if err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, TabResponse{Tab: id, URL: t.State().URL})
}

func (s *Server) handleClose(w http.ResponseWriter, r *http.Request) {
	var req TabRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	if err := s.closeTab(r.Context(), req.Tab); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, TabResponse{Tab: req.Tab})
}

func (s *Server) handleDialog(w http.ResponseWriter, r *http.Request) {
	req, t, ok := decodeTab[DialogRequest](s, w, r)
	if !ok {
		return
	}
	if err := t.HandleDialog(r.Context(), req.Accept, req.PromptText); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, TabResponse{Tab: req.Tab, URL: t.State().URL})
}

// handleDOM serves GET /browser/dom?tab=ID&max_bytes=N[&frame=ID];
// max_bytes defaults to tabguard.DefaultMaxDOMBytes, and a frame reads that
// iframe instead of the page.
func (s *Server) handleDOM(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	t, err := s.tab(r.Context(), q.Get("tab"))
	if err != nil {
		writeError(w, err, "")
		return
	}
	maxBytes, frame := 0, q.Get("frame")
	if v := q.Get("max_bytes"); v != "" {
		if maxBytes, err = strconv.Atoi(v); err != nil || maxBytes <= 0 || frame != "" && maxBytes < 4 {
			writeError(w, badRequest("bad max_bytes %q: pass a positive byte count (4 or more in a frame), or leave it out for %d", v, tabguard.DefaultMaxDOMBytes), "")
			return
		}
	}
	var d DOMResponse
	if frame != "" {
		d, err = s.frameDOM(r.Context(), t, frame, maxBytes)
	} else {
		var td tabguard.DOM
		td, err = t.DOM(r.Context(), maxBytes)
		d = DOMResponse{HTML: td.HTML, Size: td.Size, Truncated: td.Truncated}
	}
	if err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) handleScroll(w http.ResponseWriter, r *http.Request) {
	req, t, ok := decodeTab[ScrollRequest](s, w, r)
	if !ok {
		return
	}
	var out ScrollResponse
	if err := s.evalIn(r.Context(), t, req.Frame, &out, scrollJS, req.DX, req.DY); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleCursor moves the real mouse with Input.dispatchMouseEvent, so hover
// styles and mouseover handlers run. That is a CDP call, not an eval:
// Watcher.Do refuses, bounds and cuts it short as Eval would. The mouse is
// the tab's, so it takes no frame: X and Y are in the tab's viewport.
func (s *Server) handleCursor(w http.ResponseWriter, r *http.Request) {
	req, t, ok := decodeTab[CursorRequest](s, w, r)
	if !ok {
		return
	}
	move := proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: req.X, Y: req.Y}
	if err := t.Do(r.Context(), func(p *rod.Page) error { return move.Call(p) }); err != nil {
		writeError(w, err, "")
		return
	}
	var out CursorResponse
	if err := evalInto(r.Context(), t, &out, underCursorJS, req.X, req.Y); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// evalInto runs js on the tab through its watcher and decodes the result.
func evalInto(ctx context.Context, t *tabguard.Watcher, out any, js string, args ...any) error {
	res, err := t.Eval(ctx, js, args...)
	if err != nil {
		return err
	}
	if err := res.Value.Unmarshal(out); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}

// decode reads a JSON request body into v; a bad body is a 400.
// tabRequest is a request body that names a watched tab.
type tabRequest interface{ tabID() string }

func (q ScrollRequest) tabID() string { return q.Tab }
func (q CursorRequest) tabID() string { return q.Tab }
func (q DialogRequest) tabID() string { return q.Tab }
func (q PromptRequest) tabID() string { return q.Tab }
func (q ClickRequest) tabID() string  { return q.Tab }
func (q ActRequest) tabID() string    { return q.Tab }

// decodeTab decodes r's body as an R and returns it with the watched tab
// it names. ok false says the request was answered already, with why.
func decodeTab[R tabRequest](s *Server, w http.ResponseWriter, r *http.Request) (req R, t *tabguard.Watcher, ok bool) {
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return req, nil, false
	}
	t, err := s.tab(r.Context(), req.tabID())
	if err != nil {
		writeError(w, err, "")
		return req, nil, false
	}
	return req, t, true
}

func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("bad request body: %v", err)
	}
	return nil
}

// writeError answers with err's real reason and the endpoint that fixes
// it: 400 for bad input, 403 for a URL the policy refuses, 404 for a
// selector that matches nothing, 409 for an element that could not take
// an action (its reason first, even when the call's deadline ended the
// checks), a stale ref or no dialog to handle, 500 for a tab that cannot
// answer, 504 for a call or a load that ran out of time.
func writeError(w http.ResponseWriter, err error, tab string) {
	status, msg := apiError(err)
	writeJSON(w, status, ErrorResponse{Error: msg, Tab: tab})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a reader of the error sees <token>, not \u003ctoken\u003e; the type is JSON, never HTML
	_ = enc.Encode(v)        // the status is sent: a write error means the client left
}
