package engine

import (
	"context"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// reachFrame waits, within ctx, for call's frame to hold a document of its
// own, and returns how to reach it. A call that still waits shortly before
// its deadline reads into why what the frame's iframe asks for, once.
func (t *Tab) reachFrame(ctx context.Context, call *inflight, why *frameWhy) (*reach, error) {
	defer why.stop()
	for {
		t.mu.Lock()
		err := t.frameRefusal(call.frame)
		f, _ := t.tab.Frame(call.frame)
		doc := t.tab.FrameDocument(call.frame)
		r := t.reaches[call.frame]
		changed := t.changed
		// An out-of-process frame is there once its target has a URL; no
		// navigation started in an in-process one means a lazy iframe, or
		// one with no page, whose empty document is all it will hold. Chrome
		// may report that empty document late, as about:blank: it is still
		// the initial one, of an iframe that may ask for a page.
		blank := !f.OutOfProcess && (!f.Committed && f.URL == "" || f.URL == initialDocument)
		call.frameDoc, call.frameOOP = 0, f.OutOfProcess
		if err == nil && (f.Committed || blank) {
			call.frameDoc = doc
		}
		t.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case r != nil && r.doc == doc:
			return r, nil
		case f.OutOfProcess && f.Committed:
			return t.attachFrame(ctx, call)
		case blank:
			if r, err := t.resolveFrame(ctx, call, true); r != nil || err != nil {
				return r, err
			}
			t.mu.Lock()
			call.frameDoc = 0 // its iframe asks for a page: wait for it
			t.mu.Unlock()
		case f.Committed:
			return t.resolveFrame(ctx, call, false)
		}
		call.waiting = true
		if err := t.awaitFrame(ctx, call, why, changed); err != nil {
			return nil, err
		}
	}
}

// awaitFrame waits, within ctx, for news of call's frame on changed. When
// why's time comes it asks why the frame holds no document, and goes on
// waiting: the frame is reached again only when it changes.
func (t *Tab) awaitFrame(ctx context.Context, call *inflight, why *frameWhy, changed <-chan struct{}) error {
	for {
		select {
		case <-changed:
			return nil
		case <-why.due(call, t.b.patience()):
			t.askWhy(ctx, call, why)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// resolveFrame finds the remote object of an in-process frame's document,
// whose execution context is the frame's page world. blank says the frame
// never started a navigation: its empty document is taken only when its
// iframe asks for no page (no src), and nil, nil is returned otherwise.
func (t *Tab) resolveFrame(ctx context.Context, call *inflight, blank bool) (*reach, error) {
	var owner struct {
		BackendNodeID int64 `json:"backendNodeId"`
	}
	if err := t.s.Call(ctx, "DOM.getFrameOwner", frameParams{FrameID: call.frame}, &owner); err != nil {
		return nil, err
	}
	var node struct {
		Node struct {
			Attributes      []string `json:"attributes"`
			ContentDocument *struct {
				BackendNodeID int64 `json:"backendNodeId"`
			} `json:"contentDocument"`
		} `json:"node"`
	}
	if err := t.s.Call(ctx, "DOM.describeNode", nodeParams{BackendNodeID: owner.BackendNodeID}, &node); err != nil {
		return nil, err
	}
	if blank && asksForPage(node.Node.Attributes) {
		return nil, nil
	}
	if node.Node.ContentDocument == nil {
		// Chrome gives none for a frame that moved out of process.
		return nil, refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrFrameDetached, Frame: call.frame,
			Detail: "it moved to a process of its own"})
	}
	var obj struct {
		Object struct {
			ObjectID string `json:"objectId"`
		} `json:"object"`
	}
	if err := t.s.Call(ctx, "DOM.resolveNode", resolveParams{BackendNodeID: node.Node.ContentDocument.BackendNodeID, ObjectGroup: objectGroup}, &obj); err != nil {
		return nil, err
	}
	return t.keep(call, &reach{object: obj.Object.ObjectID}), nil
}

// objectGroup holds the remote objects of the frames' documents.
const objectGroup = "tabguard-frames"

// asksForPage reports whether an iframe's attributes ask for a page: a src
// other than about:blank, or a srcdoc.
func asksForPage(attrs []string) bool {
	for i := 0; i+1 < len(attrs); i += 2 {
		switch v := strings.TrimSpace(attrs[i+1]); attrs[i] {
		case "src":
			if v != "" && v != "about:blank" {
				return true
			}
		case "srcdoc":
			return true
		}
	}
	return false
}

// attachFrame attaches to an out-of-process frame's target.
func (t *Tab) attachFrame(ctx context.Context, call *inflight) (*reach, error) {
	fa, ok := t.b.d.(FrameAttacher)
	if !ok {
		return nil, refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrFrameDetached, Frame: call.frame,
			Detail: "it runs in a process of its own, which this backend does not reach"})
	}
	s, detach, err := fa.AttachFrame(ctx, call.frame)
	if err != nil {
		return nil, err
	}
	return t.keep(call, &reach{session: s, detach: detach}), nil
}

// keep caches r for call's frame, unless the frame holds another document
// by now; it returns r either way, for the call to use.
func (t *Tab) keep(call *inflight, r *reach) *reach {
	r.doc = call.frameDoc
	t.mu.Lock()
	closed := t.closed
	switch {
	case closed:
	case t.tab.FrameDocument(call.frame) != r.doc:
		if r.detach != nil {
			t.detaches = append(t.detaches, r.detach)
		}
	default:
		if old := t.reaches[call.frame]; old != nil {
			t.dropReach(call.frame, old)
		}
		if t.reaches == nil {
			t.reaches = map[string]*reach{}
		}
		t.reaches[call.frame] = r
	}
	t.mu.Unlock()
	if closed && r.detach != nil {
		r.detach() // Close has ended the others
	}
	return r
}

// detachFrames ends the sessions of frames the Tab no longer reaches; the
// detaches are made outside t.mu.
func (t *Tab) detachFrames(all bool) {
	t.mu.Lock()
	ds := t.detaches
	t.detaches = nil
	if all {
		for id, r := range t.reaches {
			t.dropReach(id, r)
		}
		ds, t.detaches = append(ds, t.detaches...), nil
	}
	t.mu.Unlock()
	for _, d := range ds {
		d()
	}
}

// initialDocument is the URL of the empty document an iframe is born with.
const initialDocument = "about:blank"
