package engine

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// FrameAttacher is a [Driver] that reaches an out-of-process iframe: a
// frame that runs in a renderer process of its own, whose target has the
// frame's ID. AttachFrame attaches to the target, within ctx, and returns
// a Session on it that lives until detach is called (or the target goes).
// A driver without it reaches in-process frames only.
type FrameAttacher interface {
	AttachFrame(ctx context.Context, targetID string) (s Session, detach func(), err error)
}

// FrameInfo is one iframe of a tab, as Frames lists it.
type FrameInfo = tabstate.FrameInfo

// reach is how the Tab reaches one frame's current document: the
// remote object of an in-process frame's document, whose execution
// context is the frame's, or the session of an out-of-process one.
type reach struct {
	doc     uint64 // the frame's document it was made for (FrameDocument)
	object  string
	session Session
	detach  func()
}

// Frames lists the tab's iframes, from its events. A tab watched after its
// page loaded has its frames learned once, by asking the browser
// (Page.getFrameTree and Target.getTargets); every other list makes no
// CDP call.
func (t *Tab) Frames() []FrameInfo {
	t.learnFrames()
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.tab.Frames()
	if len(fs) == 0 {
		return nil
	}
	out := make([]FrameInfo, len(fs))
	for i, f := range fs {
		out[i] = FrameInfo{ID: f.ID, ParentID: f.ParentID, URL: f.URL, OutOfProcess: f.OutOfProcess,
			Loading: !f.Committed && tabstate.FrameBlocked(f) == nil, Refusal: t.frameRefusal(f.ID)}
	}
	return out
}

// frameRefusal is the refusal of a call in frame id now: the tab's own,
// then the frame's. t.mu must be held.
func (t *Tab) frameRefusal(id string) error {
	if err := t.refusal(); err != nil {
		return err
	}
	f, ok := t.tab.Frame(id)
	if !ok {
		return refusal(t.b.cfg.Advice, tabstate.FrameGone(id))
	}
	return refusal(t.b.cfg.Advice, tabstate.FrameBlocked(f))
}

// cutFrames cuts short the calls in flight in a frame that crashed, went,
// moved to another process or holds another document since they were
// admitted. t.mu must be held.
func (t *Tab) cutFrames() {
	for call := range t.inflight {
		if call.frame == "" {
			continue
		}
		err := t.frameRefusal(call.frame)
		if err == nil && call.frameDoc != 0 && t.tab.FrameDocument(call.frame) != call.frameDoc {
			err = t.frameMoved(call)
		}
		if err != nil {
			call.cut(err)
			delete(t.inflight, call)
		}
	}
	for id, r := range t.reaches {
		if t.tab.FrameDocument(id) != r.doc {
			t.dropReach(id, r)
		}
	}
}

// frameMoved is the error of a call whose frame holds another document
// now: it moved to another process, or it navigated. t.mu must be held.
func (t *Tab) frameMoved(call *inflight) error {
	f, _ := t.tab.Frame(call.frame)
	if f.OutOfProcess && !call.frameOOP {
		return refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrFrameDetached, Frame: f.ID, URL: f.URL,
			Detail: "it moved to a process of its own during the call"})
	}
	return refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrNavigated, Frame: f.ID, URL: f.URL})
}

// dropReach forgets how frame id was reached. t.mu must be held.
func (t *Tab) dropReach(id string, r *reach) {
	delete(t.reaches, id)
	if r.detach != nil {
		t.detaches = append(t.detaches, r.detach)
	}
}
