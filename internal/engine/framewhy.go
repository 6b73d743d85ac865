package engine

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// frameWhy is what a call that waits for its frame's first document finds
// out, shortly before its deadline, of why the frame holds none, when the
// events do not tell: the frame's iframe, as the page holds it.
type frameWhy struct {
	timer  *time.Timer // when to ask
	asked  bool        // the time came
	read   bool        // the iframe was read
	src    string      // its src, resolved against its parent's URL; empty for none
	srcdoc bool        // it has a srcdoc
	lazy   bool        // loading=lazy
	inView bool        // some of it lies in the viewport
}

// due returns the channel that fires when a call waiting for its frame's
// first document asks why it has none: as its clock asks the page, window
// before the deadline, so the answer is there when the deadline passes. It is
// nil once the call asked: it asks once.
func (w *frameWhy) due(call *inflight, window time.Duration) <-chan time.Time {
	switch {
	case w.asked:
		return nil
	case w.timer == nil:
		at := time.Until(call.clock.deadline)
		at -= min(window, at/2)
		w.timer = time.NewTimer(max(at, 0))
	}
	return w.timer.C
}

// stop stops the timer of due, if it started.
func (w *frameWhy) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// askWhy reads, within ctx (the call's own), the iframe of call's frame
// into why, unless the events tell already: a navigation of the frame
// started and never committed.
func (t *Tab) askWhy(ctx context.Context, call *inflight, why *frameWhy) {
	why.asked = true
	t.mu.Lock()
	f, _ := t.tab.Frame(call.frame)
	base := t.tab.State().URL
	if p, ok := t.tab.Frame(f.ParentID); ok {
		base = p.URL
	}
	t.mu.Unlock()
	if started(f) {
		return
	}
	var owner struct {
		BackendNodeID int64 `json:"backendNodeId"`
	}
	if err := t.s.Call(ctx, "DOM.getFrameOwner", frameParams{FrameID: call.frame}, &owner); err != nil {
		return
	}
	var node struct {
		Node struct {
			Attributes []string `json:"attributes"`
		} `json:"node"`
	}
	if err := t.s.Call(ctx, "DOM.describeNode", nodeParams{BackendNodeID: owner.BackendNodeID}, &node); err != nil {
		return
	}
	attrs := node.Node.Attributes
	for i := 0; i+1 < len(attrs); i += 2 {
		switch v := strings.TrimSpace(attrs[i+1]); attrs[i] {
		case "src":
			if v != "" && v != initialDocument { // an empty src loads about:blank
				why.src = resolve(base, v)
			}
		case "srcdoc":
			why.srcdoc = true
		case "loading":
			why.lazy = strings.EqualFold(v, "lazy")
		}
	}
	if why.lazy {
		why.inView = t.inView(ctx, owner.BackendNodeID)
	}
	why.read = true
}

// started reports whether the events told of a navigation of frame f to
// a page, which has not committed if f holds no document.
func started(f tabstate.Frame) bool { return f.URL != "" && f.URL != initialDocument }

// inView reports whether some of node lies in the viewport, as Chrome
// lays it out: a lazy iframe there has started its load.
func (t *Tab) inView(ctx context.Context, node int64) bool {
	var (
		quads struct {
			Quads [][]float64 `json:"quads"`
		}
		metrics struct {
			Layout struct {
				Width  float64 `json:"clientWidth"`
				Height float64 `json:"clientHeight"`
			} `json:"cssLayoutViewport"`
			Visual struct {
				X float64 `json:"offsetX"`
				Y float64 `json:"offsetY"`
			} `json:"cssVisualViewport"`
		}
	)
	errs := together(
		func() error { return t.s.Call(ctx, "DOM.getContentQuads", nodeParams{BackendNodeID: node}, &quads) },
		func() error { return t.s.Call(ctx, "Page.getLayoutMetrics", nil, &metrics) },
	)
	if errs[0] != nil || errs[1] != nil {
		return false // an iframe with no layout shows nothing
	}
	for _, q := range quads.Quads {
		if len(q) != 8 {
			continue
		}
		minX, maxX, minY, maxY := q[0], q[0], q[1], q[1]
		for i := 2; i < 8; i += 2 {
			minX, maxX = min(minX, q[i]), max(maxX, q[i])
			minY, maxY = min(minY, q[i+1]), max(maxY, q[i+1])
		}
		x, y := metrics.Visual.X, metrics.Visual.Y
		if maxX+x > 0 && minX+x < metrics.Layout.Width && maxY+y > 0 && minY+y < metrics.Layout.Height {
			return true
		}
	}
	return false
}

// resolve is ref, an iframe's src, resolved against base, its parent's
// URL; ref as it is when either does not parse.
func resolve(base, ref string) string {
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	b, err := url.Parse(base)
	if err != nil || !b.IsAbs() {
		return ref
	}
	return b.ResolveReference(r).String()
}

// frameTimeout is the timeout of a call that waited for its frame's first
// document to the end, saying why the frame holds none: a navigation that
// started and never committed (the events tell, or the iframe asks for a
// page it would load by now) is a request its server never answered; a
// lazy iframe out of view never started one; an iframe with no src was
// never given a page.
func (t *Tab) frameTimeout(call *inflight, op string, why *frameWhy) error {
	t.mu.Lock()
	f, _ := t.tab.Frame(call.frame)
	t.mu.Unlock()
	te := &tabstate.TimeoutError{Op: op, Limit: call.clock.limit, Cause: tabstate.TimeoutLoading, Frame: call.frame,
		Doing: "frame " + call.frame + " never loaded a document", Advice: "read the frames that loaded (Watcher.Frames)"}
	var remedy string
	a := t.b.cfg.Advice
	if a != nil {
		remedy = a.FrameLoading
	}
	pending := ""
	switch {
	case started(f):
		pending = f.URL
	case !why.read || why.srcdoc:
		// Nothing tells why: the iframe did not answer in time, or its
		// page is its own srcdoc, which asks no server.
	case why.src == "":
		te.Doing += ": its iframe has no src, so it was never given a page"
		te.Advice = "give it a page by setting its src with Watcher.Eval, or read the frames that loaded (Watcher.Frames)"
		if a != nil {
			remedy = a.FrameLazy
		}
	case why.lazy && !why.inView:
		te.Doing += ": a lazy iframe out of view (loading=lazy) holds back its load of " + tabstate.ShownURL(why.src)
		te.Advice = "scroll the iframe into view with Watcher.Eval, or read the frames that loaded (Watcher.Frames)"
		if a != nil {
			remedy = a.FrameLazy
		}
	default:
		pending = why.src
	}
	if pending != "" {
		te.Doing = "frame " + call.frame + " still loading " + tabstate.ShownURL(pending) + ": its request is still pending: its server never answered"
	}
	if remedy != "" {
		te.Advice = remedy
	}
	return a.Words(te)
}
