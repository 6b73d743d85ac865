package tabguard

import (
	"context"
	"fmt"

	"github.com/tabguard/tabguard/internal/pagejs"
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
	if maxBytes < 0 {
		return DOM{}, fmt.Errorf("%w: maxBytes %d: pass 0 for the default or a positive cap", ErrInvalidArgument, maxBytes)
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxDOMBytes
	}
	res, err := w.Eval(ctx, pagejs.DOM, maxBytes)
	if err != nil {
		return DOM{}, err
	}
	size, head := res.Value.Get("size").Int(), res.Value.Get("head").Str()
	if size <= maxBytes && len(head) <= maxBytes {
		return DOM{HTML: head, Size: len(head)}, nil
	}
	// The page cut on a code-point boundary already; cutting again here
	// only matters if the page's count and Go's differ (lone surrogates).
	return DOM{HTML: withNotice(head[:runeCut(head, maxBytes)], size, maxBytes, w.notice), Size: size, Truncated: true}, nil
}
