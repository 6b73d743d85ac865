package tabstate

// Change says what applying an event did, so the tab's owner can act on it.
type Change uint8

const (
	// Changed: the State changed.
	Changed Change = 1 << iota
	// News: navigation news (a navigation started, committed or failed):
	// an eval in flight may have lost its document.
	News
	// Cut: evals in flight can no longer be answered (a crash, a dialog,
	// a pause, a closed tab, a lost browser): fail them now.
	Cut
	// FrameCut: an iframe crashed, moved to another process, navigated or
	// went: evals in flight in it may no longer be answered.
	FrameCut
)

// Tab follows one tab through its events. The zero value is a tab in its
// first load. Its methods are not safe for concurrent use.
type Tab struct {
	state State

	// MainFrame is the ID of the tab's main frame. For a page target it is
	// the target ID; a zero Tab learns it from the first main-frame commit.
	MainFrame string

	nav        *navigation // the main-frame navigation under way
	committed  string      // loader ID of the main frame's document
	commitNav  uint64      // number of the navigation that committed it
	navigation uint64      // navigations started so far
	seq        uint64      // navigation news so far
	dialogs    uint64      // dialogs opened so far
	// loadAt is 1 + the Seq at which a load event came while no document
	// was known to be committed and no navigation was under way: the load
	// of the document the owner is still asking about. 0: none.
	loadAt uint64
	// lifeLoader is the loader ID of the document whose lifecycle
	// milestones the State holds: the committed one's once a commit was
	// seen. early holds those that came while no document was known to be
	// committed and no navigation was under way, for Learn, with earlyAt
	// as loadAt for a load event.
	lifeLoader string
	early      Milestone
	earlyAt    uint64

	frames   map[string]*frame // the tab's iframes; nil when it has none
	frameSeq uint64            // news of the iframes so far
	attached uint64            // iframes attached so far
}

// navigation is a main-frame navigation that has started and not yet
// committed, failed or been cancelled.
type navigation struct {
	loader string
	n      uint64 // its number: Tab.navigation when it started
	before State  // the document facts it replaced, for a cancelled load
}

// State returns what is known of the tab now.
func (t *Tab) State() State { return t.state }

// Seq counts navigation news: it grows whenever a navigation starts,
// commits or fails.
func (t *Tab) Seq() uint64 { return t.seq }

// Navigations counts the main-frame navigations that have started.
func (t *Tab) Navigations() uint64 { return t.navigation }

// Committed reports the main frame's document: the loader ID of the
// navigation that committed it, and that navigation's number (0 when the
// tab saw no NavigationStarted for it).
func (t *Tab) Committed() (loaderID string, navigation uint64) { return t.committed, t.commitNav }

// Navigating reports whether a main-frame navigation is under way: it has
// started and has not committed or been cancelled. A load that failed is
// under way until Chrome's error page for it commits.
func (t *Tab) Navigating() bool { return t.nav != nil }

// Dialogs counts the dialogs that have opened.
func (t *Tab) Dialogs() uint64 { return t.dialogs }

// Learn sets the tab's URL and whether a document is committed, as its
// owner found them by asking the browser, unless navigation news arrived
// since Seq returned seq: events are fresher than any answer. A load event
// that came in the meantime, before the tab knew of the document, counts
// for it.
func (t *Tab) Learn(url string, committed bool, seq uint64) {
	if t.seq == seq {
		t.state.URL, t.state.Committed = url, committed
		if committed && t.loadAt == seq+1 {
			t.state.Loaded = true
		}
		switch {
		case !committed:
			t.state.Milestones = 0
		case t.earlyAt == seq+1:
			t.state.Milestones |= t.early
		}
	}
}

// LearnLoaded records that the committed document had fired its load
// event, as the owner found by asking the page, unless news arrived since
// seq. The page may answer before [Tab.Learn] has recorded the commit: the
// load is then kept for Learn, as a load event would be.
func (t *Tab) LearnLoaded(seq uint64) {
	switch {
	case t.seq != seq:
	case t.state.Committed:
		t.state.Loaded = true
	case t.nav == nil:
		t.loadAt = seq + 1
	}
}

// LearnErrorPage records that Chrome's error page stands in for url, as
// the owner found in the frame tree, unless news arrived since seq.
func (t *Tab) LearnErrorPage(url string, seq uint64) {
	if t.seq == seq {
		t.state.URL, t.state.Committed, t.state.ErrorPage = url, false, true
		t.state.Milestones = 0
	}
}

// DialogHandled records that a call to Page.handleJavaScriptDialog
// succeeded, so the dialog is closed even if its event is still on its way,
// unless another dialog opened since Dialogs returned n.
func (t *Tab) DialogHandled(n uint64) Change {
	if t.dialogs != n || !t.state.DialogOpen {
		return 0
	}
	clearDialog(&t.state)
	return Changed
}

// Apply applies one event of this tab and says what it changed.
func (t *Tab) Apply(e Event) Change {
	if c, ok := t.applyFrame(e); ok {
		return c
	}
	s := &t.state
	switch e := e.(type) {
	case TargetCrashed:
		first := !s.Crashed
		// The renderer took its document with it, and the document's
		// dialog and pause.
		s.Crashed, s.Loaded, s.Milestones = true, false, 0
		clearDialog(s)
		s.Paused, s.PauseReason = false, ""
		if e.Status != "" {
			s.CrashReason = e.Status
		}
		if first {
			return Changed | Cut
		}
		return Changed
	case ReloadedAfterCrash:
		// A new renderer: the tab is loading the page the navigation names.
		s.Crashed, s.CrashReason, s.Committed, s.Loaded, s.Milestones = false, "", false, false, 0
		t.seq++
		return Changed | News
	case NavigationStarted:
		return t.started(e)
	case FrameNavigated:
		if e.ParentID != "" {
			return 0
		}
		return t.commit(e)
	case NavigatedWithinDocument:
		if e.FrameID != t.MainFrame || t.MainFrame == "" {
			return 0
		}
		s.URL = e.URL
		return Changed
	case LoadingFailed:
		return t.failed(e)
	case LifecycleEvent:
		return t.lifecycle(e)
	case LoadFired:
		if !s.Committed && t.nav == nil {
			t.loadAt = t.seq + 1
		}
		if !s.Committed || s.Loaded {
			return 0
		}
		s.Loaded = true
		return Changed
	case StoppedLoading:
		if t.nav == nil || e.FrameID != t.MainFrame {
			return 0
		}
		return t.abandoned()
	case DialogOpening:
		t.dialogs++
		s.DialogOpen, s.DialogType, s.DialogMessage = true, e.Type, e.Message
		return Changed | Cut
	case DialogClosed:
		clearDialog(s)
		return Changed
	case Paused:
		s.Paused, s.PauseReason = true, e.Reason
		return Changed | Cut
	case Resumed:
		s.Paused, s.PauseReason = false, ""
		return Changed
	case Detached:
		if s.Closed {
			return 0
		}
		s.Closed = true
		return Changed | Cut
	case Discarded:
		if s.Closed {
			return 0
		}
		s.Closed, s.Discarded, s.ReplacedBy = true, true, e.ReplacementID
		return Changed | Cut
	case Disconnected:
		if s.BrowserGone {
			// Only the owner's better reason for a loss it first could
			// not explain.
			if e.Reason == "" || e.Reason == s.GoneReason {
				return 0
			}
			s.GoneReason = e.Reason
			return Changed
		}
		s.BrowserGone, s.GoneReason = true, e.Reason
		return Changed | Cut
	}
	return 0
}

// started moves the tab to the page a new main-frame navigation loads. A
// crashed tab, or one with no document, is loading from now on: nothing is
// committed until the new document is. A healthy tab keeps its document,
// which answers evals until the new one commits.
func (t *Tab) started(e NavigationStarted) Change {
	if e.FrameID != t.MainFrame && t.MainFrame != "" || sameDocument(e.Type) {
		return 0
	}
	s := &t.state
	t.navigation++
	t.seq++
	t.nav = &navigation{loader: e.LoaderID, n: t.navigation, before: *s}
	if s.Crashed || s.LoadError != "" || s.ErrorPage || s.URL == "about:blank" || s.URL == "" {
		// A new tab's blank document holds renderer commands until the
		// first page commits: nothing is there yet either.
		s.Committed, s.Loaded, s.Milestones = false, false, 0
	}
	s.Crashed, s.CrashReason = false, ""
	s.LoadError, s.ErrorPage = "", false
	s.URL = e.URL
	return Changed | News
}

// commit records a main-frame commit: a new document means the renderer
// lives again, so any commit clears a crash; only a real page clears a load
// error, while Chrome's error page records one.
func (t *Tab) commit(e FrameNavigated) Change {
	s := &t.state
	t.MainFrame = e.FrameID
	t.committed, t.commitNav = e.LoaderID, 0
	t.lifeLoader, t.early = e.LoaderID, 0
	t.seq++
	cut := Change(0)
	if len(t.frames) > 0 {
		// A new document: the old one's iframes went with it.
		t.frames = nil
		t.frameSeq++
		cut = FrameCut
	}
	s.Crashed, s.CrashReason = false, ""
	clearDialog(s) // a new document has no dialog and no pause
	s.Paused, s.PauseReason = false, ""
	doc := t.state
	doc.Loaded, doc.Milestones = false, 0
	if e.UnreachableURL != "" {
		doc.URL, doc.Committed, doc.ErrorPage = e.UnreachableURL, false, true
	} else {
		doc.URL, doc.Committed, doc.ErrorPage, doc.LoadError = e.URL+e.URLFragment, true, false, ""
	}
	if t.nav != nil && t.nav.loader != e.LoaderID {
		// An older navigation's document, often the error page of a load
		// that failed, committed after a newer navigation started. It is
		// what the tab keeps if the newer load is cancelled; until then
		// the tab is loading the newer one, and a real page answers evals.
		t.nav.before = doc
		s.Committed, s.Loaded, s.Milestones = doc.Committed, false, 0
		return Changed | News | cut
	}
	if t.nav != nil {
		t.commitNav = t.nav.n
	}
	t.nav = nil
	*s = doc
	return Changed | News | cut
}

// failed records a main-frame load that failed. A cancelled one (stopped,
// or replaced by a newer navigation) leaves the tab with the document it
// had; a real failure is a load error until a page commits.
func (t *Tab) failed(e LoadingFailed) Change {
	if t.nav == nil || e.RequestID != t.nav.loader {
		return 0
	}
	if e.Canceled {
		return t.abandoned()
	}
	t.seq++
	t.state.LoadError = e.ErrorText
	return Changed | News
}

// abandoned gives the tab back the document facts a navigation that ended
// without a commit had replaced.
func (t *Tab) abandoned() Change {
	s, b := &t.state, t.nav.before
	if !s.Committed {
		// The navigation had set the document aside (a crashed tab, one
		// with no document or a blank one): its milestones come back.
		// Otherwise they are the document's, which kept its own.
		s.Milestones = b.Milestones
	}
	s.URL, s.Committed, s.Loaded, s.LoadError, s.ErrorPage = b.URL, b.Committed, b.Loaded, b.LoadError, b.ErrorPage
	t.nav = nil
	t.seq++
	return Changed | News
}

// sameDocument reports whether Chrome's navigationType keeps the document.
func sameDocument(typ string) bool {
	return typ == "sameDocument" || typ == "historySameDocument"
}

func clearDialog(s *State) {
	s.DialogOpen, s.DialogType, s.DialogMessage = false, "", ""
}
