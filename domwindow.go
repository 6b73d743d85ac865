package tabguard

import (
	"context"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
)

// ErrSnapshotGone reports a [Watcher.ReadDOM] of a snapshot the page no
// longer holds: it navigated, or the snapshot went unread for
// SnapshotTTL, or newer snapshots pushed it out.
var ErrSnapshotGone = tabstate.ErrSnapshotGone

// ErrNoMatch reports a [Watcher.ReadDOM] whose CSS selector matches nothing.
var ErrNoMatch = tabstate.ErrNoMatch

// SnapshotTTL is how long a page keeps a DOM snapshot that nobody reads.
const SnapshotTTL = engine.SnapshotTTL

// DOMOptions says what [Watcher.ReadDOM] reads. The zero value reads the
// first DefaultMaxDOMBytes of the page's HTML.
type DOMOptions struct {
	// MaxBytes caps the window in UTF-8 bytes; 0 means DefaultMaxDOMBytes.
	// It must hold any character (at least 4), and a window holds whole
	// characters only, so it may be a few bytes shorter.
	MaxBytes int
	// Snapshot continues reading a snapshot a previous window named; empty
	// takes a new one.
	Snapshot string
	// Offset is where the window starts, in UTF-8 bytes from the start of
	// the snapshot: a previous window's NextOffset, or 0.
	Offset int
	// Selector, when set, scopes the read to the elements that match this
	// CSS selector: their outerHTML (or text), one after another, each on
	// a line of its own.
	Selector string
	// Text reads the visible text (innerText) instead of the HTML.
	Text bool
	// Frame, when set, reads that iframe of the tab (a FrameInfo.ID from
	// Watcher.Frames) instead of the page, under the rules of
	// Watcher.EvalFrame.
	Frame string
}

// DOMWindow is one window of a DOM snapshot, from [Watcher.ReadDOM].
type DOMWindow struct {
	// Content is the window: HTML, or text when DOMOptions.Text is set,
	// cut on a UTF-8 boundary.
	Content string
	// Snapshot names the serialisation the page holds for further windows,
	// until it is read to the end or goes unread for SnapshotTTL.
	Snapshot string
	// Offset is where Content starts, and NextOffset where the next window
	// starts, in UTF-8 bytes; NextOffset is 0 when Content reaches the end.
	Offset, NextOffset int
	// Size is the exact UTF-8 size of the whole snapshot, or -1 in the
	// first window of a page with non-ASCII text: the page counts it after
	// answering, and later windows have it.
	Size int
	// Changed reports that the page's DOM changed since the snapshot was
	// taken: the windows still come from the snapshot, never a mix.
	Changed bool
}

// Notice is the line a reader of a cut window needs: what it holds, and
// how to read on, such as "<!-- bytes 0-102397 of 5242880 in snapshot s1
// (cut at 102400); read on from offset 102397 of snapshot s1 -->". It is
// empty for a window that reaches the end.
func (d DOMWindow) Notice(maxBytes int) string { return engine.DOMWindow(d).Notice(maxBytes) }

// ReadDOM reads one window of the page's HTML, or of its visible text,
// with the deadline and refusals of [Watcher.Eval]. The page serialises
// itself once, into a snapshot it keeps; the window comes from it, cut on
// a UTF-8 boundary, and so do the next ones when DOMOptions names the
// snapshot and the offset the last window gave: they join up exactly, even
// if the page changes meanwhile (DOMWindow.Changed then says so). Only the
// window crosses the CDP socket.
//
// A snapshot the page no longer holds gives [ErrSnapshotGone]; a selector
// that matches nothing gives [ErrNoMatch] naming it; a bad selector, a
// negative or too small MaxBytes or an offset inside a character gives
// [ErrInvalidArgument].
func (w *Watcher) ReadDOM(ctx context.Context, opts DOMOptions) (DOMWindow, error) {
	win, err := w.t.ReadDOM(ctx, engine.DOMOptions(opts))
	return DOMWindow(win), err
}
