package tabstate

import "sort"

// FrameAttached is Page.frameAttached: an iframe joined the tab, under
// ParentID. It holds Chrome's initial empty document until its first
// navigation commits; a lazy iframe out of view, or one whose server never
// answers, never gets further.
type FrameAttached struct{ FrameID, ParentID string }

// FrameDetached is Page.frameDetached. Reason is "remove" when the iframe
// left the document, and "swap" when the frame moved to a renderer
// process of its own (an out-of-process iframe), where it lives on under
// the same frame ID, reached through its own target.
type FrameDetached struct{ FrameID, Reason string }

func (FrameAttached) isEvent() {}
func (FrameDetached) isEvent() {}

// Frame is what is known of one iframe of a tab, from events alone. The
// tab's main frame is not one: its health is the tab's [State].
type Frame struct {
	// ID is the frame's ID; an out-of-process iframe's target has the same.
	ID string
	// ParentID is the frame that holds the iframe: the main frame's ID
	// for a frame of the page itself.
	ParentID string
	// URL is the frame's document, or the page it loads or failed to load;
	// empty before its first navigation starts.
	URL string
	// Committed reports that a document of the frame's own committed: it
	// is false while the frame holds Chrome's initial empty document.
	Committed bool
	// LoadError is the network error of the frame's last load, such as
	// "net::ERR_CONNECTION_REFUSED"; empty when it did not fail.
	LoadError string
	// ErrorPage reports that Chrome's error page stands in for URL.
	ErrorPage bool
	// OutOfProcess reports that the frame runs in a renderer process of
	// its own, reached through its own target (site isolation).
	OutOfProcess bool
	// Crashed reports that the frame's own renderer died while the tab
	// lives; CrashReason is Chrome's status, such as "crashed" or "oom".
	Crashed     bool
	CrashReason string
}

// frame is a Frame and what the machine keeps of its loads.
type frame struct {
	Frame
	n      uint64 // the order it was attached in
	gen    uint64 // counts the documents it held: see Tab.FrameDocument
	loader string // the navigation under way, "" for none
	doc    string // the URL of its committed document
}

// FrameBlocked returns nil when an eval in frame f may go ahead as far as
// the frame itself goes (the tab's own refusal comes first, see
// [Blocked]), and otherwise a [*BlockedError], with Frame set, that says
// why not: a renderer of its own that crashed, a load that failed or
// Chrome's error page. A frame in its first load is not refused: an eval
// waits for its document, within the deadline.
func FrameBlocked(f Frame) error {
	switch {
	case f.Crashed:
		return &BlockedError{Reason: ErrFrameCrashed, Frame: f.ID, URL: f.URL, Detail: f.CrashReason}
	case f.LoadError != "":
		be := LoadFailure(f.URL, f.LoadError)
		be.Frame = f.ID
		return be
	case f.ErrorPage:
		return &BlockedError{Reason: ErrNoDocument, Frame: f.ID, URL: f.URL, Detail: "error page"}
	}
	return nil
}

// FrameGone is the refusal of a call in a frame the tab does not have:
// one removed from its page, or an ID that was never one of its frames.
func FrameGone(id string) *BlockedError {
	return &BlockedError{Reason: ErrFrameDetached, Frame: id, Detail: "no such frame in the tab"}
}

// Frames lists the tab's iframes in the order they were attached.
func (t *Tab) Frames() []Frame {
	if len(t.frames) == 0 {
		return nil
	}
	fs := make([]*frame, 0, len(t.frames))
	for _, f := range t.frames {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].n < fs[j].n })
	out := make([]Frame, len(fs))
	for i, f := range fs {
		out[i] = f.Frame
	}
	return out
}

// Frame returns the tab's iframe id, and whether the tab has it.
func (t *Tab) Frame(id string) (Frame, bool) {
	f := t.frames[id]
	if f == nil {
		return Frame{}, false
	}
	return f.Frame, true
}

// FrameDocument numbers the document frame id holds: it changes when the
// frame commits a document or moves to another process, so what a program
// found in the frame's last document is known to be gone. It is 0 for a
// frame the tab does not have.
func (t *Tab) FrameDocument(id string) uint64 {
	if f := t.frames[id]; f != nil {
		return f.gen
	}
	return 0
}

// FrameInfo is one iframe of a tab as a watcher lists it: what the events
// say of it, and what an eval in it would get now.
type FrameInfo struct {
	// ID names the frame to EvalFrame and to DOMOptions.Frame.
	ID string
	// ParentID is the frame that holds it: the tab's main frame for an
	// iframe of the page itself.
	ParentID string
	// URL is its document, or the page it loads or failed to load.
	URL string
	// OutOfProcess reports that it runs in a renderer process of its own.
	OutOfProcess bool
	// Loading reports that it holds no document of its own yet: an eval
	// in it waits for one, within its deadline.
	Loading bool
	// Refusal is what an eval in it would get now: nil, or a
	// [*BlockedError].
	Refusal error
}

// FrameNews counts the news of the tab's iframes: it grows whenever one
// is attached, navigates, fails, crashes, moves or goes.
func (t *Tab) FrameNews() uint64 { return t.frameSeq }

// LearnFrames records frames, as the owner found them by asking the
// browser (Page.getFrameTree and the iframe targets), unless frame news
// arrived since FrameNews returned seq. A frame the events told of
// already is kept as they tell it.
func (t *Tab) LearnFrames(frames []Frame, seq uint64) {
	if t.frameSeq != seq {
		return
	}
	for _, f := range frames {
		if f.ID == "" || f.ID == t.MainFrame || t.frames[f.ID] != nil {
			continue
		}
		nf := t.attach(f.ID, f.ParentID)
		nf.Frame = f
		nf.doc = f.URL
	}
}

// attach adds frame id under parent and returns it.
func (t *Tab) attach(id, parent string) *frame {
	if t.frames == nil {
		t.frames = map[string]*frame{}
	}
	t.attached++
	f := &frame{Frame: Frame{ID: id, ParentID: parent}, n: t.attached, gen: 1}
	t.frames[id] = f
	return f
}

// applyFrame applies an event of one of the tab's iframes; ok is false
// for an event of the main frame.
func (t *Tab) applyFrame(e Event) (Change, bool) {
	switch e := e.(type) {
	case FrameAttached:
		if e.FrameID == t.MainFrame || t.frames[e.FrameID] != nil {
			return 0, true
		}
		t.attach(e.FrameID, e.ParentID)
		t.frameSeq++
		return Changed, true
	case FrameDetached:
		f := t.frames[e.FrameID]
		if f == nil {
			return 0, true
		}
		t.frameSeq++
		t.dropChildren(e.FrameID)
		if e.Reason == "swap" {
			// The frame lives on in a process of its own; what it held
			// in this one is gone with the document it had here.
			if !f.OutOfProcess { // unless its target told of the move first
				f.gen++
				f.Committed = false // until its target tells of its document
			}
			f.OutOfProcess, f.loader = true, ""
			return Changed | FrameCut, true
		}
		delete(t.frames, e.FrameID)
		return Changed | FrameCut, true
	case NavigationStarted:
		f := t.frames[e.FrameID]
		if f == nil || e.FrameID == t.MainFrame {
			return 0, f != nil
		}
		if sameDocument(e.Type) {
			return 0, true
		}
		t.frameSeq++
		f.loader, f.URL, f.LoadError, f.ErrorPage = e.LoaderID, e.URL, "", false
		return Changed, true
	case FrameNavigated:
		if e.ParentID == "" {
			return 0, false
		}
		f := t.frames[e.FrameID]
		if f == nil {
			f = t.attach(e.FrameID, e.ParentID)
		}
		t.frameSeq++
		if e.URL == "about:blank" && e.UnreachableURL == "" && !f.Committed && !f.OutOfProcess && f.loader == "" && f.URL == "" {
			// The report of the empty document it was born with, which
			// comes late and is no new document: what a script wrote into
			// it stays.
			f.URL, f.doc, f.Committed = e.URL, e.URL, true
			return Changed, true
		}
		t.dropChildren(e.FrameID) // a new document has iframes of its own
		f.gen++
		// The page's own session tells of a commit in the page's process:
		// a frame that had moved out of it is back (Chrome destroys its
		// target and attaches the frame again).
		f.loader, f.Crashed, f.CrashReason, f.OutOfProcess = "", false, "", false
		if e.UnreachableURL != "" {
			f.URL, f.Committed, f.ErrorPage = e.UnreachableURL, false, true
		} else {
			f.URL, f.doc, f.Committed, f.ErrorPage, f.LoadError = e.URL+e.URLFragment, e.URL+e.URLFragment, true, false, ""
		}
		return Changed | FrameCut, true
	case NavigatedWithinDocument:
		f := t.frames[e.FrameID]
		if f == nil {
			return 0, false
		}
		f.URL, f.doc = e.URL, e.URL
		return Changed, true
	case StoppedLoading:
		f := t.frames[e.FrameID]
		if f == nil {
			return 0, false
		}
		if f.loader != "" && f.LoadError == "" {
			// Abandoned before it committed: the frame keeps what it had.
			// One that moved out of process goes on loading there.
			f.loader = ""
			if !f.OutOfProcess {
				f.URL = f.doc
			}
			t.frameSeq++
			return Changed, true
		}
		return 0, true
	case LoadingFailed:
		for _, f := range t.frames {
			if f.loader == "" || f.loader != e.RequestID {
				continue
			}
			t.frameSeq++
			if e.Canceled {
				f.loader = ""
				if !f.OutOfProcess {
					f.URL = f.doc
				}
			} else {
				f.LoadError = e.ErrorText
			}
			return Changed, true
		}
		return 0, false
	case TargetCrashed:
		f := t.frames[e.TargetID]
		if e.TargetID == "" || e.TargetID == t.MainFrame || f == nil {
			return 0, false
		}
		if f.Crashed && (e.Status == "" || f.CrashReason != "") {
			return 0, true
		}
		t.frameSeq++
		f.Crashed = true
		if e.Status != "" {
			f.CrashReason = e.Status
		}
		return Changed | FrameCut, true
	}
	return 0, false
}

// FrameMoved records what the browser tells of an out-of-process iframe's
// own target: that the frame runs in a process of its own, at url once
// its target has one. A url other than the frame's document is a document
// committed there, by a live renderer: after a crash or a failed load, a
// new one; the URL of the load that failed is Chrome's error page for it.
func (t *Tab) FrameMoved(id, url string) Change {
	f := t.frames[id]
	if f == nil {
		return 0
	}
	// Compared with the document, not with URL: the page's session has
	// already set URL to the page the frame is navigating to.
	commit := url != "" && url != f.doc
	if f.OutOfProcess && !commit {
		return 0
	}
	t.frameSeq++
	if !f.OutOfProcess || commit {
		f.gen++
	}
	f.OutOfProcess = true
	switch {
	case !commit:
		// Moving: its document in the new process is not there yet.
		f.Committed = false
	case f.LoadError != "" && url == f.URL:
		f.doc, f.loader, f.Committed, f.ErrorPage = url, "", false, true
	default:
		f.URL, f.doc, f.Committed, f.loader = url, url, true, ""
		f.Crashed, f.CrashReason, f.LoadError, f.ErrorPage = false, "", "", false
	}
	return Changed
}

// dropChildren forgets every frame below id.
func (t *Tab) dropChildren(id string) {
	for cid, f := range t.frames {
		if f.ParentID == id {
			t.dropChildren(cid)
			delete(t.frames, cid)
		}
	}
}
