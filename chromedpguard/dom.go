package chromedpguard

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tabguard/tabguard/internal/pagejs"
)

// DefaultMaxDOMBytes caps [Watcher.DOM] and [Watcher.ReadDOM] when no cap
// is given: 100 KiB, as in the rod backend.
const DefaultMaxDOMBytes = 100 * 1024

// Notice words the line appended to a cut page: shown bytes of size, cut
// at maxBytes.
type Notice func(shown, size, maxBytes int) string

// DefaultNotice reads like "<!-- truncated: showing 102397 of 5242880
// bytes, cut at maxBytes 102400; pass a larger maxBytes to see more -->",
// the rod backend's text.
func DefaultNotice(shown, size, maxBytes int) string {
	return "<!-- truncated: showing " + strconv.Itoa(shown) + " of " + strconv.Itoa(size) +
		" bytes, cut at maxBytes " + strconv.Itoa(maxBytes) + "; pass a larger maxBytes to see more -->"
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
	var v struct {
		Size int    `json:"size"`
		Head string `json:"head"`
	}
	if err := json.Unmarshal(res.Value, &v); err != nil {
		return DOM{}, fmt.Errorf("read DOM: the page answered %.40q: %w", res.Value, err)
	}
	if v.Size <= maxBytes && len(v.Head) <= maxBytes {
		return DOM{HTML: v.Head, Size: len(v.Head)}, nil
	}
	head := v.Head[:runeCut(v.Head, maxBytes)]
	notice := w.notice
	if notice == nil {
		notice = DefaultNotice
	}
	return DOM{HTML: head + "\n" + notice(len(head), v.Size, maxBytes), Size: v.Size, Truncated: true}, nil
}

// runeCut returns the largest n <= max at which s can be cut without
// splitting a UTF-8 sequence.
func runeCut(s string, max int) int {
	if max >= len(s) {
		return len(s)
	}
	for n := max; n >= 0 && n > max-utf8.UTFMax; n-- {
		if n == 0 || utf8.RuneStart(s[n]) {
			return n
		}
	}
	return max
}

const (
	// SnapshotTTL is how long a page keeps a DOM snapshot nobody reads.
	SnapshotTTL = time.Minute
	// maxSnapshots is how many snapshots a page keeps at once.
	maxSnapshots = 3
)

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
	if err := opts.check(); err != nil {
		return DOMWindow{}, err
	}
	max := opts.MaxBytes
	if max == 0 {
		max = DefaultMaxDOMBytes
	}
	op := map[string]any{"snapshot": opts.Snapshot, "offset": opts.Offset, "max": max, "selector": opts.Selector, "text": opts.Text}
	res, err := w.Eval(ctx, pagejs.Window, op, SnapshotTTL.Seconds(), maxSnapshots)
	if err != nil {
		return DOMWindow{}, err
	}
	var v struct {
		Gone, NoMatch, BadOffset, Changed bool
		BadSelector                       *string
		ID, B64                           string
		Size, Next                        int
	}
	if err := json.Unmarshal(res.Value, &v); err != nil {
		return DOMWindow{}, fmt.Errorf("read DOM: the page answered %.40q: %w", res.Value, err)
	}
	switch {
	case v.Gone:
		return DOMWindow{}, fmt.Errorf("%w: %s: the page navigated, or it went unread for %v: read again from offset 0 without a snapshot",
			ErrSnapshotGone, opts.Snapshot, SnapshotTTL)
	case v.NoMatch:
		return DOMWindow{}, fmt.Errorf("%w: %q", ErrNoMatch, opts.Selector)
	case v.BadSelector != nil:
		return DOMWindow{}, fmt.Errorf("%w: selector %q: %s", ErrInvalidArgument, opts.Selector, *v.BadSelector)
	case v.BadOffset:
		return DOMWindow{}, fmt.Errorf("%w: offset %d is not where a character starts in snapshot %s: pass 0 or a NextOffset",
			ErrInvalidArgument, opts.Offset, opts.Snapshot)
	}
	content, err := base64.StdEncoding.DecodeString(v.B64)
	if err != nil || !utf8.Valid(content) {
		return DOMWindow{}, fmt.Errorf("read DOM: the page sent a window that is not UTF-8: %v", err)
	}
	return DOMWindow{Content: string(content), Snapshot: v.ID, Offset: opts.Offset, NextOffset: v.Next, Size: v.Size, Changed: v.Changed}, nil
}

func (o DOMOptions) check() error {
	switch {
	case o.MaxBytes < 0 || o.MaxBytes > 0 && o.MaxBytes < utf8.UTFMax:
		return fmt.Errorf("%w: MaxBytes %d: pass 0 for the default or at least %d", ErrInvalidArgument, o.MaxBytes, utf8.UTFMax)
	case o.Offset < 0:
		return fmt.Errorf("%w: Offset %d: pass 0 or a NextOffset", ErrInvalidArgument, o.Offset)
	case o.Offset > 0 && o.Snapshot == "":
		return fmt.Errorf("%w: Offset %d without a Snapshot: pass the Snapshot its window came from", ErrInvalidArgument, o.Offset)
	}
	return nil
}
