package tabguard

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxDOMBytes caps HTML returned by [TruncateDOM] and [Watcher.DOM]
// when no cap is given.
const DefaultMaxDOMBytes = 100 * 1024

// A Notice words the line that follows a cut text: shown of size bytes are
// shown, cut at maxBytes (a cut on a rune boundary may show fewer bytes
// than the cap). A program whose users set the cap under another name (an
// MCP tool's max_bytes) words its own, so the notice names what they can pass.
type Notice func(shown, size, maxBytes int) string

// DefaultNotice is the notice of [TruncateDOM]:
//
//	<!-- truncated: showing 102397 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->
func DefaultNotice(shown, size, maxBytes int) string {
	var b strings.Builder
	b.Grow(noticeBytes)
	writeNotice(&b, shown, size, maxBytes)
	return b.String()
}

// noticeBytes is room for the default notice with three 20-digit numbers.
const noticeBytes = 160

func writeNotice(b *strings.Builder, shown, size, maxBytes int) {
	var num [20]byte // strconv.Itoa would allocate each number
	b.WriteString("<!-- truncated: showing ")
	b.Write(strconv.AppendInt(num[:0], int64(shown), 10))
	b.WriteString(" of ")
	b.Write(strconv.AppendInt(num[:0], int64(size), 10))
	b.WriteString(" bytes, cut at maxBytes ")
	b.Write(strconv.AppendInt(num[:0], int64(maxBytes), 10))
	b.WriteString("; pass a larger maxBytes to see more -->")
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
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDOMBytes
	}
	if len(html) <= maxBytes {
		return html, false
	}
	return withNotice(html[:runeCut(html, maxBytes)], len(html), maxBytes, notice), true
}

// runeCut returns the largest n <= max at which s can be cut without
// splitting a UTF-8 encoded rune. It looks back at most utf8.UTFMax bytes.
func runeCut(s string, max int) int {
	if max >= len(s) {
		return len(s)
	}
	for n := max; n >= 0 && n > max-utf8.UTFMax; n-- {
		if n == 0 || utf8.RuneStart(s[n]) {
			return n
		}
	}
	return max // not UTF-8 here: a byte cut is all there is
}

// withNotice appends the notice line to head, the shown part of an HTML
// text of size bytes cut at maxBytes. The default notice is written into
// the result directly, so it costs no allocation of its own.
func withNotice(head string, size, maxBytes int, notice Notice) string {
	if notice != nil {
		return head + "\n" + notice(len(head), size, maxBytes)
	}
	var b strings.Builder
	b.Grow(len(head) + 1 + noticeBytes)
	b.WriteString(head)
	b.WriteByte('\n')
	writeNotice(&b, len(head), size, maxBytes)
	return b.String()
}
