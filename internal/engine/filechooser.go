package engine

import (
	"context"
	"fmt"

	"github.com/tabguard/tabguard/tabstate"
)

// File choosers. Measured on Chromium 156: a real click on an <input
// type=file> opens nothing headless (the input gets a cancel event) and a
// native window headed, which no CDP event reports and which outlives
// navigation. Page.setInterceptFileChooserDialog, per tab session, shows
// nothing in either mode and sends Page.fileChooserOpened instead (with
// the Page domain enabled): with cancel, Chrome cancels every chooser
// itself and the input gets its cancel event; without, the chooser waits
// for DOM.setFileInputFiles, which fires the input's input and change
// events. Chrome gives that call no way to cancel one chooser: an empty
// file list fires no event, and turning cancel on leaves a chooser already
// open as it is. So a chooser the program's callback does not fill is
// cancelled as Chrome cancels one: the engine fires a bubbling cancel
// event at the input (not trusted, as no script-made event is).
//
// Chrome sends Page.fileChooserOpened after its reply to the click that
// opened the chooser (38 clicks of 40, 16 µs to 1.3 ms later), and after
// no event a call could wait for: a call is told of a chooser cancelled
// while it was in flight, and a chooser whose event trails the call's last
// reply is only logged. Telling every call would mean waiting after each.
// So the engine cancels every chooser itself, the default policy's too,
// rather than have Chrome cancel it (cancel: true): the page hears cancel
// only once the engine has recorded it, so a call that awaits what the
// page hears is told, whatever order the driver hands events and replies
// in (rod's can trail).

// interceptParams is Page.setInterceptFileChooserDialog's.
type interceptParams struct {
	Enabled bool `json:"enabled"`
	Cancel  bool `json:"cancel"`
}

// setFilesParams is DOM.setFileInputFiles's.
type setFilesParams struct {
	Files         []string `json:"files"`
	BackendNodeID int      `json:"backendNodeId"`
}

type resolveNodeParams struct {
	BackendNodeID int `json:"backendNodeId"`
}

type resolveNodeResult struct {
	Object struct {
		ObjectID string `json:"objectId"`
	} `json:"object"`
}

type releaseObjectParams struct {
	ObjectID string `json:"objectId"`
}

// fireCancel is what the input hears of a cancelled chooser, as from
// Chrome: a cancel event that bubbles.
const fireCancel = `function() { this.dispatchEvent(new Event("cancel", {bubbles: true})) }`

// interceptChoosers makes Chrome hold the tab's file choosers for the
// engine, in the background; the returned
// channel closes once Chrome answered. Watch waits for it on a healthy
// committed tab. Chrome holds the call while the tab is crashed, and
// answers "Not attached to an active page" while it is too new: it is
// sent again then, until the Tab's life ends.
func (t *Tab) interceptChoosers() <-chan struct{} {
	p := interceptParams{Enabled: true}
	done := make(chan struct{})
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer close(done)
		err := t.whenAttached(t.life, func() error { return t.s.Call(t.life, "Page.setInterceptFileChooserDialog", p, nil) })
		if err != nil && t.life.Err() == nil {
			t.logf("tabguard: file choosers not intercepted", err)
		}
	}()
	return done
}

// chooserOpened takes in Page.fileChooserOpened: it cancels the chooser,
// or with a callback asks it for files, in a goroutine of the Tab's, as
// intake never blocks and never sends a command.
func (t *Tab) chooserOpened(e tabstate.FileChooserOpened) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	url := t.tab.State().URL
	t.wg.Add(1)
	t.mu.Unlock()
	if t.b.cfg.FileChooser == nil {
		// Recorded first, so that a call in flight that awaits what the
		// page hears answers it.
		t.chooserCancelled(tabstate.ChooserCancelled(url, e.Mode, nil), nil)
		go func() {
			defer t.wg.Done()
			ctx, cancel := context.WithTimeout(t.life, t.timeout)
			defer cancel()
			t.cancelChooser(ctx, e.BackendNodeID)
		}()
		return
	}
	go func() {
		defer t.wg.Done()
		t.chooseFiles(e, url)
	}()
}

// chooseFiles asks the program's callback for the files of chooser e,
// opened on the tab at url, within the eval timeout, and gives them to
// the input, or cancels the chooser when they cannot be given.
func (t *Tab) chooseFiles(e tabstate.FileChooserOpened, url string) {
	multiple := e.Mode == tabstate.ChooserMultiple
	ctx, cancel := context.WithTimeout(t.life, t.timeout)
	files, err := t.b.cfg.FileChooser(ctx, tabstate.FileChooser{FrameID: e.FrameID, Multiple: multiple, URL: url})
	cancel()
	why := tabstate.CheckChosen(files, multiple, err)
	// The commands have a deadline of their own: the callback may have
	// used all of its.
	ctx, cancel = context.WithTimeout(t.life, t.timeout)
	defer cancel()
	if why != nil {
		// Recorded first, so that a call in flight that awaits what the
		// page hears answers it.
		t.chooserCancelled(tabstate.ChooserCancelled(url, e.Mode, why), why)
		t.cancelChooser(ctx, e.BackendNodeID)
		return
	}
	if err := t.s.Call(ctx, "DOM.setFileInputFiles", setFilesParams{Files: files, BackendNodeID: e.BackendNodeID}, nil); err != nil {
		why = fmt.Errorf("the input did not take Options.FileChooser's files: %w", err)
		t.chooserCancelled(tabstate.ChooserCancelled(url, e.Mode, why), why)
		return
	}
	if log := t.b.cfg.Logger; log != nil {
		log.Info("tabguard: file chooser given files", "target", t.id, "files", len(files))
	}
}

// cancelChooser tells the input of a chooser that no file was chosen.
// An input that is gone (its page left) needs no word.
func (t *Tab) cancelChooser(ctx context.Context, backendNodeID int) {
	var node resolveNodeResult
	if t.s.Call(ctx, "DOM.resolveNode", resolveNodeParams{BackendNodeID: backendNodeID}, &node) != nil {
		return
	}
	_ = t.s.Call(ctx, "Runtime.callFunctionOn", callOnParams{ObjectID: node.Object.ObjectID, FunctionDeclaration: fireCancel}, nil)
	_ = t.s.Call(ctx, "Runtime.releaseObject", releaseObjectParams{ObjectID: node.Object.ObjectID}, nil)
}

// chooserCancelled records a cancelled chooser, which the calls in flight
// answer (chooserDuring), and logs it with why, the error that kept the
// callback's files from the page (an ErrInvalidArgument for a relative
// path), if any.
func (t *Tab) chooserCancelled(be *tabstate.BlockedError, why error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.lastChooser = be
	t.choosers.Add(1)
	t.mu.Unlock()
	if log := t.b.cfg.Logger; log != nil {
		log.Warn("tabguard: file chooser cancelled", "target", t.id, "err", be, "cause", why)
	}
}

// chooserDuring is the answer of call, which answered nil: an
// ErrFileChooser when a chooser was cancelled while it was in flight. It
// reads one counter on the way of a call that saw none.
func (t *Tab) chooserDuring(call *inflight) error {
	if t.choosers.Load() == call.choosers {
		return nil
	}
	t.mu.Lock()
	be := *t.lastChooser
	t.mu.Unlock()
	return refusal(t.b.cfg.Advice, &be)
}
