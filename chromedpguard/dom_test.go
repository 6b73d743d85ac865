package chromedpguard_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

func TestDOM(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/big?kb=512", &chromedpguard.Options{EvalTimeout: 10 * time.Second})
	full := outerHTML(t, f)
	dom, err := f.w.DOM(within(t, 20*time.Second), 0)
	require.NoError(t, err)
	assert.True(t, dom.Truncated)
	assert.Equal(t, len(full), dom.Size)
	assert.True(t, utf8.ValidString(dom.HTML), "cut inside a rune")
	i := strings.LastIndex(dom.HTML, "\n<!-- truncated: showing ")
	require.Positive(t, i, "no truncation notice")
	assert.LessOrEqual(t, i, chromedpguard.DefaultMaxDOMBytes)
	assert.Equal(t, full[:i], dom.HTML[:i])
	assert.Contains(t, dom.HTML[i:], " of "+strconv.Itoa(dom.Size)+" bytes, cut at maxBytes 102400")

	small, err := f.w.DOM(within(t, 20*time.Second), len(full)+10)
	require.NoError(t, err)
	assert.Equal(t, chromedpguard.DOM{HTML: full, Size: len(full)}, small)
	_, err = f.w.DOM(within(t, 5*time.Second), -1)
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
}

func TestReadDOMWindowsJoinUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/big?kb=512", &chromedpguard.Options{EvalTimeout: 10 * time.Second})
	full := outerHTML(t, f)
	var got strings.Builder
	opts := chromedpguard.DOMOptions{MaxBytes: 64 << 10}
	windows := 0
	for {
		win, err := f.w.ReadDOM(within(t, 20*time.Second), opts)
		require.NoError(t, err)
		windows++
		assert.LessOrEqual(t, len(win.Content), opts.MaxBytes)
		assert.Equal(t, got.Len(), win.Offset)
		got.WriteString(win.Content)
		if win.NextOffset == 0 {
			assert.Equal(t, len(full), win.Size)
			break
		}
		opts.Snapshot, opts.Offset = win.Snapshot, win.NextOffset
	}
	assert.Equal(t, full, got.String(), "the windows join up to the page")
	assert.Greater(t, windows, 5)

	_, err := f.w.ReadDOM(within(t, 5*time.Second), chromedpguard.DOMOptions{Snapshot: "s999"})
	assert.ErrorIs(t, err, chromedpguard.ErrSnapshotGone)
	_, err = f.w.ReadDOM(within(t, 5*time.Second), chromedpguard.DOMOptions{Selector: "#nothing"})
	assert.ErrorIs(t, err, chromedpguard.ErrNoMatch)
	_, err = f.w.ReadDOM(within(t, 5*time.Second), chromedpguard.DOMOptions{Selector: "p[", MaxBytes: 2})
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	text, err := f.w.ReadDOM(within(t, 5*time.Second), chromedpguard.DOMOptions{Selector: "p", Text: true, MaxBytes: 40})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text.Content, "héllo wörld"), "%q", text.Content)
}

// outerHTML reads the whole page in one eval.
func outerHTML(t *testing.T, f *fixture) string {
	t.Helper()
	res, err := f.w.Eval(within(t, 20*time.Second), `() => document.documentElement.outerHTML`)
	require.NoError(t, err)
	var s string
	require.NoError(t, json.Unmarshal(res.Value, &s))
	return s
}
