package tabguard

import (
	"context"
	"fmt"
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

// domJS measures and slices outerHTML inside the page, so only about
// maxBytes cross the CDP socket. An all-ASCII page (the common case) needs
// no encoding at all. Otherwise TextEncoder counts the exact UTF-8 size,
// chunk by chunk into one reused buffer: encoding the whole text at once
// would allocate its full UTF-8 copy, which for a 5 MB page costs more than
// serialising it. A chunk never ends inside a surrogate pair, and 3 bytes a
// UTF-16 unit is the most UTF-8 needs, so each chunk fits the buffer.
// encodeInto then finds the longest prefix that fits without splitting a
// rune: it stops before a code point that would not fit, and max+1 UTF-16
// units always hold at least max bytes.
const domJS = `(max) => {
	const root = document.documentElement;
	const h = root ? root.outerHTML : "";
	const ascii = !/[^\x00-\x7f]/.test(h);
	let size = h.length;
	if (!ascii) {
		const chunk = 16384, enc = new TextEncoder(), buf = new Uint8Array(3 * chunk);
		size = 0;
		for (let i = 0; i < h.length;) {
			let j = Math.min(i + chunk, h.length);
			const c = h.charCodeAt(j - 1);
			if (j < h.length && c >= 0xd800 && c <= 0xdbff) j--;
			size += enc.encodeInto(h.slice(i, j), buf).written;
			i = j;
		}
	}
	if (size <= max) return {size, head: h};
	if (ascii) return {size, head: h.slice(0, max)};
	const {read} = new TextEncoder().encodeInto(h.slice(0, max + 1), new Uint8Array(max));
	return {size, head: h.slice(0, read)};
}`

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
	res, err := w.Eval(ctx, domJS, maxBytes)
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
