package tabguard

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxDOMBytes caps HTML returned by [TruncateDOM] and [Watcher.DOM]
// when no cap is given.
const DefaultMaxDOMBytes = 100 * 1024

// TruncateDOM returns html unchanged and false when it fits in maxBytes.
// Otherwise it returns at most maxBytes bytes of html, cut on a UTF-8 rune
// boundary, followed by a one-line notice naming the real size and the cap:
//
//	<!-- truncated: showing 102400 of 5242880 bytes; pass a larger maxBytes to see more -->
//
// and true. A maxBytes <= 0 means [DefaultMaxDOMBytes]. The work is
// proportional to maxBytes, not to len(html), and the result is the only
// allocation.
func TruncateDOM(html string, maxBytes int) (string, bool) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDOMBytes
	}
	if len(html) <= maxBytes {
		return html, false
	}
	return withNotice(html[:runeCut(html, maxBytes)], len(html)), true
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

// withNotice appends the truncation notice to head, the shown part of an
// HTML text of size bytes.
func withNotice(head string, size int) string {
	const (
		open  = "\n<!-- truncated: showing "
		of    = " of "
		close = " bytes; pass a larger maxBytes to see more -->"
	)
	var b strings.Builder
	b.Grow(len(head) + len(open) + len(of) + len(close) + 40)
	var num [20]byte // strconv.Itoa would allocate each number
	b.WriteString(head)
	b.WriteString(open)
	b.Write(strconv.AppendInt(num[:0], int64(len(head)), 10))
	b.WriteString(of)
	b.Write(strconv.AppendInt(num[:0], int64(size), 10))
	b.WriteString(close)
	return b.String()
}
