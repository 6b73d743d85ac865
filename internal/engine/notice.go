package engine

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// noticeBytes is room for the default notice with three 20-digit numbers.
const noticeBytes = 160

// DefaultNotice is the line that follows a cut text by default:
//
//	<!-- truncated: showing 102397 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->
func DefaultNotice(shown, size, maxBytes int) string {
	var b strings.Builder
	b.Grow(noticeBytes)
	writeNotice(&b, shown, size, maxBytes)
	return b.String()
}

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

// Truncate returns html unchanged and false when it fits in maxBytes (<= 0
// means DefaultMaxDOMBytes). Otherwise it returns at most maxBytes bytes
// of html, cut on a UTF-8 rune boundary, followed by a line of notice (nil
// means DefaultNotice), and true. The work is proportional to maxBytes,
// and with the default notice the result is the only allocation.
func Truncate(html string, maxBytes int, notice func(shown, size, maxBytes int) string) (string, bool) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDOMBytes
	}
	if len(html) <= maxBytes {
		return html, false
	}
	return WithNotice(html[:RuneCut(html, maxBytes)], len(html), maxBytes, notice), true
}

// RuneCut returns the largest n <= max at which s can be cut without
// splitting a UTF-8 encoded rune. It looks back at most utf8.UTFMax bytes.
func RuneCut(s string, max int) int {
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

// WithNotice appends the notice line to head, the shown part of a text of
// size bytes cut at maxBytes. The default notice (a nil notice) is written
// into the result directly, so it costs no allocation of its own.
func WithNotice(head string, size, maxBytes int, notice func(shown, size, maxBytes int) string) string {
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
