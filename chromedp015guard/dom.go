package chromedp015guard

import (
	"context"

	"github.com/tabguard/tabguard/internal/engine"
)

// DefaultMaxDOMBytes caps [Watcher.DOM] and [Watcher.ReadDOM] when no cap
// is given: 100 KiB, as in the rod backend.
const DefaultMaxDOMBytes = engine.DefaultMaxDOMBytes

// UncappedDOM, passed as [Watcher.DOM]'s maxBytes, reads the whole page,
// however large: a choice for programs that store pages (an archiver, a
// screenshot tool), not for agents, whose context a page of megabytes
// floods. The whole HTML then crosses the CDP socket in one message.
const UncappedDOM = engine.UncappedDOM

// Notice words the line appended to a cut page: shown bytes of size, cut
// at maxBytes.
type Notice func(shown, size, maxBytes int) string

// DefaultNotice reads like "<!-- truncated: showing 102397 of 5242880
// bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->",
// the rod backend's text.
func DefaultNotice(shown, size, maxBytes int) string {
	return engine.DefaultNotice(shown, size, maxBytes)
}

// DOM is a page's HTML as read by [Watcher.DOM].
type DOM struct {
	// HTML is document.documentElement.outerHTML, or when Truncated its
	// first bytes, cut on a UTF-8 boundary, followed by a line of
	// Options.DOMNotice ([DefaultNotice] by default).
	HTML string
	// Size is the exact UTF-8 byte length of the whole outerHTML.
	Size int
	// Truncated reports that HTML holds only part of the page.
	Truncated bool
}

// DOM reads the tab's HTML capped at maxBytes, with the deadline and
// refusals of [Watcher.Eval]. A maxBytes of 0 means [DefaultMaxDOMBytes];
// a negative one is an [ErrInvalidArgument]. The page measures and slices
// its own HTML, so a 5 MB page sends about maxBytes over the CDP socket;
// the result is the rod backend's Watcher.DOM's.
func (w *Watcher) DOM(ctx context.Context, maxBytes int) (DOM, error) {
	d, err := w.t.DOM(ctx, maxBytes)
	return DOM(d), err
}

// SnapshotTTL is how long a page keeps a DOM snapshot nobody reads.
const SnapshotTTL = engine.SnapshotTTL

// DOMOptions says what [Watcher.ReadDOM] reads. The zero value reads the
// first DefaultMaxDOMBytes of the page's HTML.
type DOMOptions struct {
	// MaxBytes caps the window in UTF-8 bytes; 0 means DefaultMaxDOMBytes.
	MaxBytes int
	// Snapshot continues reading a snapshot a previous window named; empty
	// takes a new one.
	Snapshot string
	// Offset is where the window starts: a previous window's NextOffset, or 0.
	Offset int
	// Selector, when set, scopes the read to the elements this CSS selector
	// matches, one after another, each on a line of its own.
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
	// Content is the window, cut on a UTF-8 boundary.
	Content string
	// Snapshot names the serialisation the page holds for further windows.
	Snapshot string
	// Offset is where Content starts, and NextOffset where the next window
	// starts, in UTF-8 bytes; NextOffset is 0 when Content reaches the end.
	Offset, NextOffset int
	// Size is the exact UTF-8 size of the whole snapshot, or -1 in the
	// first window of a page with non-ASCII text.
	Size int
	// Changed reports that the page's DOM changed since the snapshot.
	Changed bool
}

// Notice is the line a reader of a cut window needs: what it holds, and
// how to read on, such as "<!-- bytes 0-102397 of 5242880 in snapshot s1
// (cut at 102400); read on from offset 102397 of snapshot s1 -->". It is
// empty for a window that reaches the end.
func (d DOMWindow) Notice(maxBytes int) string { return engine.DOMWindow(d).Notice(maxBytes) }

// ReadDOM reads one window of the page's HTML, or of its visible text, with
// the deadline and refusals of [Watcher.Eval]. The page serialises itself
// once into a snapshot it keeps; windows read with its name and the last
// NextOffset join up exactly, even if the page changes meanwhile. Only the
// window crosses the CDP socket. The results are the rod backend's
// Watcher.ReadDOM's.
//
// A snapshot the page no longer holds gives [ErrSnapshotGone]; a selector
// that matches nothing gives [ErrNoMatch]; a bad selector, a too small
// MaxBytes or an offset inside a character gives [ErrInvalidArgument].
func (w *Watcher) ReadDOM(ctx context.Context, opts DOMOptions) (DOMWindow, error) {
	win, err := w.t.ReadDOM(ctx, engine.DOMOptions(opts))
	return DOMWindow(win), err
}
