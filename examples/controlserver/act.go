package main

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/tabstate"
)

// MaxClickables caps the items of GET /browser/clickables: a snapshot's
// default cap.
const MaxClickables = tabguard.DefaultSnapshotElements

// actionKinds are the kinds POST /browser/act takes.
var actionKinds = []tabguard.ActionKind{
	tabguard.ActionClick, tabguard.ActionDoubleClick, tabguard.ActionRightClick, tabguard.ActionHover,
	tabguard.ActionFill, tabguard.ActionPress, tabguard.ActionSelect, tabguard.ActionScroll,
}

// handleSnapshot serves GET /browser/snapshot?tab=ID[&frame=ID]
// [&selector=CSS][&offset=N].
func (s *Server) handleSnapshot(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	snap, t, err := s.snapshot(r)
	if err != nil {
		writeError(w, err, "")
		return
	}
	out := SnapshotResponse{Tab: q.Get("tab"), URL: tabstate.ShownURL(t.State().URL), Elements: []SnapshotElement{},
		Shown: snap.Shown, Total: snap.Total, Offset: snap.Offset, NextOffset: snap.NextOffset}
	for _, e := range snap.Elements {
		out.Elements = append(out.Elements, SnapshotElement{Ref: e.Ref, Role: e.Role, Name: e.Name, Value: e.Value, Frame: e.Frame,
			Disabled: e.Disabled, Checked: e.Checked, Expanded: e.Expanded, Focused: e.Focused, Offscreen: e.Offscreen,
			Line: e.String(), X: e.X, Y: e.Y, W: e.W, H: e.H})
	}
	for _, f := range snap.Skipped {
		out.Skipped = append(out.Skipped, SkippedFrame{Frame: f.ID, URL: tabstate.ShownURL(f.URL), Reason: f.Reason})
	}
	if snap.NextOffset != 0 {
		q.Set("offset", strconv.Itoa(snap.NextOffset))
		out.Notice = fmt.Sprintf("showing elements %d-%d of %d: read on with GET /browser/snapshot?%s",
			snap.Offset+1, snap.Offset+snap.Shown, snap.Total, q.Encode())
	}
	writeJSON(w, http.StatusOK, out)
}

// handleClickables serves GET /browser/clickables?tab=ID[&frame=ID]: the
// first MaxClickables elements of the snapshot, in the shape older
// clients read; in a frame, the boxes are in the frame's viewport.
func (s *Server) handleClickables(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("offset") || r.URL.Query().Has("selector") {
		writeError(w, badRequest("GET /browser/clickables takes tab and frame only: read on with GET /browser/snapshot"), "")
		return
	}
	snap, _, err := s.snapshot(r)
	if err != nil {
		writeError(w, err, "")
		return
	}
	out := ClickablesResponse{Items: []Clickable{}, Total: snap.Total, Truncated: snap.NextOffset != 0}
	for _, e := range snap.Elements {
		out.Items = append(out.Items, Clickable{Ref: e.Ref, Tag: e.Role, Text: e.Name, X: e.X, Y: e.Y, W: e.W, H: e.H})
	}
	writeJSON(w, http.StatusOK, out)
}

// snapshot takes the snapshot r's query asks for, under the URL policy
// (agentprompt.Snapshots).
func (s *Server) snapshot(r *http.Request) (tabguard.Snapshot, *tabguard.Watcher, error) {
	q := r.URL.Query()
	t, err := s.tab(r.Context(), q.Get("tab"))
	if err != nil {
		return tabguard.Snapshot{}, nil, err
	}
	opts := tabguard.SnapshotOptions{Frame: q.Get("frame"), Selector: q.Get("selector")}
	if v := q.Get("offset"); v != "" {
		if opts.Offset, err = strconv.Atoi(v); err != nil || opts.Offset < 0 {
			return tabguard.Snapshot{}, nil, badRequest("bad offset %q: pass the next_offset of an earlier snapshot, or leave it out", v)
		}
	}
	snap, err := s.snaps.Take(r.Context(), t, opts)
	if err != nil && opts.Frame != "" {
		err = frameError(t, opts.Frame, err)
	}
	return snap, t, err
}

// handleAct serves POST /browser/act: Watcher.Act, once the URL policy
// lets the server into the element's frame.
func (s *Server) handleAct(w http.ResponseWriter, r *http.Request) {
	req, t, ok := decodeTab[ActRequest](s, w, r)
	if !ok {
		return
	}
	a := tabguard.Action{Kind: tabguard.ActionKind(req.Kind), Ref: req.Ref, Selector: req.Selector, Frame: req.Frame,
		Text: req.Text, Key: req.Key, Values: req.Values, NoWait: req.NoWait}
	if err := checkAction(a); err != nil {
		writeError(w, err, "")
		return
	}
	if err := s.snaps.Check(t, a); err != nil {
		writeError(w, err, "")
		return
	}
	acted, err := t.Act(r.Context(), a)
	if err != nil {
		writeError(w, err, "")
		return
	}
	out := actResponse(acted)
	out.Tab, out.URL = req.Tab, tabstate.ShownURL(t.State().URL)
	writeJSON(w, http.StatusOK, out)
}

// checkAction is a 400 for an action the server can tell is wrong
// without the page.
func checkAction(a tabguard.Action) error {
	known := false
	names := make([]string, len(actionKinds))
	for i, k := range actionKinds {
		known = known || a.Kind == k
		names[i] = string(k)
	}
	switch {
	case !known:
		return badRequest("kind %q: pass one of %s", a.Kind, strings.Join(names, ", "))
	case a.Ref != "" && a.Selector != "":
		return badRequest("both ref and selector given: pass one")
	case a.Ref == "" && a.Selector == "" && a.Kind != tabguard.ActionPress:
		return badRequest("missing ref or selector: pass a ref from GET /browser/snapshot, or a CSS selector")
	}
	return nil
}

// actResponse is a in the API's terms, with what to do about what it set
// off, naming the endpoints that do it.
func actResponse(a tabguard.Acted) ActResponse {
	out := ActResponse{Kind: string(a.Kind), Done: a.String(), Element: a.Element, Received: a.Received, X: a.X, Y: a.Y, Value: a.Value, NewTabs: a.NewTabs}
	var next []string
	if n := a.Navigation; n != nil {
		out.Navigation = &ActNavigation{URL: tabstate.ShownURL(n.URL), State: "pending", Error: n.Error}
		switch {
		case n.Error != "":
			out.Navigation.State = "failed"
			next = append(next, "the load failed: GET /browser/tabs says whether the tab still answers; POST /browser/navigate or POST /browser/reload if not")
		case n.Committed:
			out.Navigation.State = "committed"
			next = append(next, "the tab shows the new page: refs of the old one are stale; GET /browser/snapshot for fresh ones")
		default:
			next = append(next, "the tab is loading the new page: GET /browser/snapshot for its refs once it has loaded; refs of this page will be stale")
		}
	}
	if d := a.Dialog; d != nil {
		out.Dialog = &ActDialog{Type: d.Type, Message: d.Message}
		next = append(next, "the "+d.Type+" dialog refuses the tab's calls until POST /browser/dialog answers it")
	}
	if d := a.Download; d != nil {
		out.Download = &ActDownload{Name: d.Name, URL: tabstate.ShownURL(d.URL), State: d.State}
		next = append(next, "the server saves no downloads: the file is not kept")
	}
	for _, id := range a.NewTabs {
		next = append(next, "tab "+id+" opened: GET /browser/tabs lists it")
	}
	out.Next = strings.Join(next, "; ")
	return out
}

// actionWords puts the endpoints in place of the Go calls an action's
// advice names; the more specific phrases come first, as a Replacer tries
// its pairs in order.
var actionWords = strings.NewReplacer(
	"take a fresh snapshot with Watcher.Snapshot", "take fresh refs with GET /browser/snapshot",
	"take fresh refs with Watcher.Snapshot", "take fresh refs with GET /browser/snapshot",
	"Watcher.Snapshot lists", "GET /browser/snapshot lists",
	"leave Action.Frame empty for the main frame", "leave frame out for the main frame",
	"pass Action.Frame ", "pass frame ",
	"(Watcher.Frames lists the frames)", "(GET /browser/frames lists them)",
	"(a scroll action on it)", "(POST /browser/act with kind scroll)",
	"Watcher.Snapshot", "GET /browser/snapshot",
	"Watcher.Frames", "GET /browser/frames",
)

// wordAction is the watchers' Advice.Word: an action that could not act
// gets its advice in the API's terms. A refusal keeps the remedy
// promptAdvice's maps gave, or none, for advice to word; a timeout's
// advice is timeoutAdvice's.
func wordAction(err error, advice string) string {
	switch e := err.(type) {
	case *tabguard.BlockedError:
		return e.Remedy
	case *tabguard.TimeoutError:
		return advice
	}
	return actionWords.Replace(advice)
}

// actionStatus is the status and the text of an action that could not
// act, in the API's terms: 404 for a selector that matches nothing, 409
// for an element that could not take the action or a stale ref.
func actionStatus(err error) (int, string, bool) {
	switch {
	case errors.Is(err, tabguard.ErrNoMatch):
		return http.StatusNotFound, actionWords.Replace(err.Error()), true
	case errors.Is(err, tabguard.ErrNotActionable), errors.Is(err, tabguard.ErrStaleRef):
		return http.StatusConflict, actionWords.Replace(err.Error()), true
	}
	return 0, "", false
}

// isAction reports that err is an action that could not act.
func isAction(err error) bool {
	_, _, ok := actionStatus(err)
	return ok
}
