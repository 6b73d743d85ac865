package tabguard

import "github.com/tabguard/tabguard/internal/engine"

// DefaultMaxDOMBytes caps HTML returned by [TruncateDOM] and [Watcher.DOM]
// when no cap is given.
const DefaultMaxDOMBytes = engine.DefaultMaxDOMBytes

// UncappedDOM, passed as [Watcher.DOM]'s maxBytes, reads the whole page,
// however large: a choice for programs that store pages (an archiver, a
// screenshot tool), not for agents, whose context a page of megabytes
// floods. The whole HTML then crosses the CDP socket in one message.
const UncappedDOM = engine.UncappedDOM

// A Notice words the line that follows a cut text: shown of size bytes are
// shown, cut at maxBytes (a cut on a rune boundary may show fewer bytes
// than the cap). A program whose users set the cap under another name (an
// MCP tool's max_bytes) words its own, so the notice names what they can pass.
type Notice func(shown, size, maxBytes int) string

// DefaultNotice is the notice of [TruncateDOM]:
//
//	<!-- truncated: showing 102397 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->
func DefaultNotice(shown, size, maxBytes int) string {
	return engine.DefaultNotice(shown, size, maxBytes)
}

// TruncateDOM returns html unchanged and false when it fits in maxBytes.
// Otherwise it returns at most maxBytes bytes of html, cut on a UTF-8 rune
// boundary, followed by a line of [DefaultNotice] naming the shown and real
// sizes and the cap, and true. A maxBytes <= 0 means [DefaultMaxDOMBytes].
// The work is proportional to maxBytes, not to len(html), and the result is
// the only allocation.
func TruncateDOM(html string, maxBytes int) (string, bool) {
	return TruncateDOMNotice(html, maxBytes, nil)
}

// TruncateDOMNotice is [TruncateDOM] with the notice worded by notice; a nil
// notice means DefaultNotice.
func TruncateDOMNotice(html string, maxBytes int, notice Notice) (string, bool) {
	return engine.Truncate(html, maxBytes, notice)
}
