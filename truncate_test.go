package tabguard_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard"
)

// notice is the line TruncateDOM appends after shown of size bytes cut at max.
func notice(shown, size, max int) string {
	return fmt.Sprintf("\n<!-- truncated: showing %d of %d bytes, cut at maxBytes %d; pass a larger maxBytes to see more -->", shown, size, max)
}

func TestTruncateDOM(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", tabguard.DefaultMaxDOMBytes+1)
	tests := []struct {
		name          string
		in            string
		max           int
		want          string
		wantTruncated bool
	}{
		{name: "empty", in: "", max: 10, want: ""},
		{name: "exact fit", in: "<p>hi</p>", max: 9, want: "<p>hi</p>"},
		{name: "one over", in: "<p>hi</p>", max: 8, want: "<p>hi</p" + notice(8, 9, 8), wantTruncated: true},
		{name: "2-byte rune at the cut", in: "<p>héllo</p>", max: 5, want: "<p>h" + notice(4, 13, 5), wantTruncated: true},
		{name: "2-byte rune just fits", in: "<p>héllo</p>", max: 6, want: "<p>hé" + notice(6, 13, 6), wantTruncated: true},
		{name: "3-byte CJK at the cut", in: "日本語", max: 4, want: "日" + notice(3, 9, 4), wantTruncated: true},
		{name: "3-byte CJK cut mid-rune", in: "日本語", max: 5, want: "日" + notice(3, 9, 5), wantTruncated: true},
		{name: "4-byte emoji at the cut", in: "a😀b", max: 4, want: "a" + notice(1, 6, 4), wantTruncated: true},
		{name: "ZWJ sequence cut between runes", in: "👩‍💻", max: 7, want: "👩\u200d" + notice(7, 11, 7), wantTruncated: true},
		{name: "cap smaller than the first rune", in: "😀", max: 2, want: "" + notice(0, 4, 2), wantTruncated: true},
		{name: "zero means default, fits", in: strings.Repeat("a", tabguard.DefaultMaxDOMBytes), max: 0, want: strings.Repeat("a", tabguard.DefaultMaxDOMBytes)},
		{name: "zero means default, one over", in: long, max: 0, want: long[:tabguard.DefaultMaxDOMBytes] + notice(tabguard.DefaultMaxDOMBytes, len(long), tabguard.DefaultMaxDOMBytes), wantTruncated: true},
		{name: "negative means default", in: long, max: -5, want: long[:tabguard.DefaultMaxDOMBytes] + notice(tabguard.DefaultMaxDOMBytes, len(long), tabguard.DefaultMaxDOMBytes), wantTruncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, truncated := tabguard.TruncateDOM(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("TruncateDOM(%q, %d) = %q; want %q", shorten(tt.in), tt.max, shorten(got), shorten(tt.want))
			}
			assert.Equal(t, tt.wantTruncated, truncated)
			assert.True(t, utf8.ValidString(got), "output is not valid UTF-8")
		})
	}
}

func TestTruncateDOMNoticeIsOneLine(t *testing.T) {
	t.Parallel()
	got, _ := tabguard.TruncateDOM(strings.Repeat("x", 5<<20), 0)
	lines := strings.Split(got, "\n")
	assert.Len(t, lines, 2)
	assert.Equal(t, "<!-- truncated: showing 102400 of 5242880 bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->", lines[1])
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}
