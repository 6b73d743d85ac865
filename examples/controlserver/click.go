package main

import (
	"errors"
	"net/http"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// clickArmJS names the element at x, y, and when it is a file input (or a
// label of one) starts listening for what the input hears after the
// click: the files its chooser was given (change), or none (cancel). A
// chooser always ends one way or the other, as the server answers every
// one; the second is the bound for an input that opens none (disabled).
const clickArmJS = `(x, y) => {
	let el = document.elementFromPoint(x, y);
	const tag = el ? el.tagName.toLowerCase() : "";
	if (el && el.control) el = el.control;
	if (!el || el.type !== "file") return {tag, file: false};
	window.__tabguardClick = new Promise(done => {
		const end = heard => { clearTimeout(timer); done(heard) };
		const timer = setTimeout(() => end({}), 1000);
		el.addEventListener("change", () => end({files: [...el.files].map(f => f.name)}), {once: true});
		el.addEventListener("cancel", () => end({cancelled: true}), {once: true});
	});
	return {tag, file: true};
}`

// clickHeardJS awaits what the file input heard after the click.
const clickHeardJS = `() => { const heard = window.__tabguardClick; delete window.__tabguardClick; return heard }`

// clicked is what clickArmJS found at the point.
type clicked struct {
	Tag  string `json:"tag"`
	File bool   `json:"file"`
}

// chooserHeard is what a file input heard after the click.
type chooserHeard struct {
	Files []string `json:"files"`
}

// handleClick serves POST /browser/click: it presses and releases the
// left button at X, Y, as a user would, in one guarded call (Watcher.Do).
// A file input clicked opens its chooser, which the watcher answers: with
// the files POST /browser/prompt gave the tab, or cancelled. The call
// awaits what the input hears, so a cancelled chooser answers
// ErrFileChooser, naming POST /browser/prompt.
func (s *Server) handleClick(w http.ResponseWriter, r *http.Request) {
	var req ClickRequest
	if err := decode(w, r, &req); err != nil {
		writeError(w, err, "")
		return
	}
	t, err := s.tab(r.Context(), req.Tab)
	if err != nil {
		writeError(w, err, "")
		return
	}
	var at clicked
	var heard chooserHeard
	err = t.Do(r.Context(), func(p *rod.Page) error {
		res, err := p.Evaluate(rod.Eval(clickArmJS, req.X, req.Y))
		if err != nil {
			return err
		}
		if err := res.Value.Unmarshal(&at); err != nil {
			return err
		}
		if err := press(p, req.X, req.Y); err != nil {
			return err
		}
		if !at.File {
			return nil
		}
		res, err = p.Evaluate(rod.Eval(clickHeardJS).ByPromise())
		if err != nil {
			return err
		}
		return res.Value.Unmarshal(&heard)
	})
	if errors.Is(err, tabguard.ErrNavigated) {
		err = nil // the click followed a link: done, and not to be repeated
	}
	if err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, ClickResponse{Tab: req.Tab, URL: t.State().URL, Tag: at.Tag, Files: heard.Files})
}

// press moves the mouse to x, y and clicks there with the left button.
func press(p *rod.Page, x, y float64) error {
	events := []proto.InputDispatchMouseEvent{
		{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: x, Y: y},
		{Type: proto.InputDispatchMouseEventTypeMousePressed, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
		{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
	}
	for _, ev := range events {
		if err := ev.Call(p); err != nil {
			return err
		}
	}
	return nil
}
