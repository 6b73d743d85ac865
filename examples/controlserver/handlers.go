package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// MaxClickables caps the items of GET /browser/clickables.
const MaxClickables = 500

// clickablesJS lists visible clickable elements, capped in the page so a
// page with 100,000 links sends only max of them.
const clickablesJS = `(max) => {
	const sel = 'a[href], button, input, select, textarea, summary, [role=button], [onclick], [tabindex]:not([tabindex="-1"])';
	const items = [];
	let total = 0;
	for (const el of document.querySelectorAll(sel)) {
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		total++;
		if (items.length >= max) continue;
		const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 80);
		items.push({tag: el.tagName.toLowerCase(), text, href: el.href || '', x: r.x, y: r.y, w: r.width, h: r.height});
	}
	return {items, total, truncated: total > items.length};
}`

const scrollJS = `(dx, dy) => { window.scrollBy(dx, dy); return {x: window.scrollX, y: window.scrollY}; }`

const underCursorJS = `(x, y) => {
	const el = document.elementFromPoint(x, y);
	return el ? {tag: el.tagName.toLowerCase(), text: (el.innerText || '').trim().slice(0, 80)} : {tag: ''};
}`

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

// handleDOM serves GET /browser/dom?tab=ID&max_bytes=N; max_bytes defaults
// to tabguard.DefaultMaxDOMBytes.
func (s *Server) handleDOM(w http.ResponseWriter, r *http.Request) {
	t, err := s.tab(r.URL.Query().Get("tab"))
	if err != nil {
		writeError(w, err, "")
		return
	}
	maxBytes := 0
	if v := r.URL.Query().Get("max_bytes"); v != "" {
		if maxBytes, err = strconv.Atoi(v); err != nil || maxBytes <= 0 {
			writeError(w, badRequest("bad max_bytes %q: pass a positive byte count, or leave it out for %d", v, tabguard.DefaultMaxDOMBytes), "")
			return
		}
	}
	d, err := t.w.DOM(r.Context(), maxBytes)
	if err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, DOMResponse{HTML: d.HTML, Size: d.Size, Truncated: d.Truncated})
}

func (s *Server) handleClickables(w http.ResponseWriter, r *http.Request) {
	t, err := s.tab(r.URL.Query().Get("tab"))
	if err != nil {
		writeError(w, err, "")
		return
	}
	var out ClickablesResponse
	if err := evalInto(r.Context(), t, &out, clickablesJS, MaxClickables); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleScroll(w http.ResponseWriter, r *http.Request) {
	var req ScrollRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	t, err := s.tab(req.Tab)
	if err != nil {
		writeError(w, err, "")
		return
	}
	var out ScrollResponse
	if err := evalInto(r.Context(), t, &out, scrollJS, req.DX, req.DY); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleCursor moves the real mouse with Input.dispatchMouseEvent, so hover
// styles and mouseover handlers run. That is a CDP call, not an eval:
// Watcher.Do refuses, bounds and cuts it short as Eval would.
func (s *Server) handleCursor(w http.ResponseWriter, r *http.Request) {
	var req CursorRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	t, err := s.tab(req.Tab)
	if err != nil {
		writeError(w, err, "")
		return
	}
	move := proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: req.X, Y: req.Y}
	if err := t.w.Do(r.Context(), func(p *rod.Page) error { return move.Call(p) }); err != nil {
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
func evalInto(ctx context.Context, t *tab, out any, js string, args ...any) error {
	res, err := t.w.Eval(ctx, js, args...)
	if err != nil {
		return err
	}
	if err := res.Value.Unmarshal(out); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}

// decode reads a JSON request body into v; a bad body is a 400.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("bad request body: %v", err)
	}
	return nil
}

// writeError answers with err's real text: 400 for bad input, else 500.
func writeError(w http.ResponseWriter, err error, tab string) {
	status := http.StatusInternalServerError
	var bad *badRequestError
	if errors.As(err, &bad) || errors.Is(err, errUnknownTab) || errors.Is(err, tabguard.ErrInvalidArgument) {
		status = http.StatusBadRequest
	}
	writeJSON(w, status, ErrorResponse{Error: err.Error(), Tab: tab})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the status is sent: a write error means the client left
}
