package tabguard

import (
	"context"
)

// DOM is a page's HTML as read by [Watcher.DOM].
type DOM struct {
	// HTML is document.documentElement.outerHTML, or when Truncated its
	// first bytes, cut on a UTF-8 boundary, followed by a line of
	// Options.DOMNotice ([DefaultNotice] by default). No doctype is prepended.
	HTML string
	// Size is the exact UTF-8 byte length of the whole outerHTML.
	Size int
	// Truncated reports that HTML holds only part of the page.
	Truncated bool
}

// DOM reads the tab's HTML capped at maxBytes, with the deadline and
// refusals of [Watcher.Eval]. A maxBytes of 0 means [DefaultMaxDOMBytes];
// a negative one is an [ErrInvalidArgument]. The page measures and slices
// its own HTML, so a 5 MB page sends about maxBytes over the CDP socket,
// and the result equals TruncateDOM(outerHTML, maxBytes).
func (w *Watcher) DOM(ctx context.Context, maxBytes int) (DOM, error) {
	d, err := w.t.DOM(ctx, maxBytes)
	return DOM(d), err
}
