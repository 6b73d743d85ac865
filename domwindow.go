package tabguard

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// ErrSnapshotGone reports a [Watcher.ReadDOM] of a snapshot the page no
// longer holds: it navigated, or the snapshot went unread for
// SnapshotTTL, or newer snapshots pushed it out.
var ErrSnapshotGone = errors.New("DOM snapshot is gone")

// ErrNoMatch reports a [Watcher.ReadDOM] whose CSS selector matches nothing.
var ErrNoMatch = errors.New("selector matches nothing")

const (
	// SnapshotTTL is how long a page keeps a DOM snapshot that nobody reads.
	SnapshotTTL = time.Minute
	// maxSnapshots is how many snapshots a page keeps at once; a new one
	// pushes the oldest out.
	maxSnapshots = 3
)

// DOMOptions says what [Watcher.ReadDOM] reads. The zero value reads the
// first DefaultMaxDOMBytes of the page's HTML.
type DOMOptions struct {
	// MaxBytes caps the window in UTF-8 bytes; 0 means DefaultMaxDOMBytes.
	// It must hold any character (at least 4), and a window holds whole
	// characters only, so it may be a few bytes shorter.
	MaxBytes int
	// Snapshot continues reading a snapshot a previous window named; empty
	// takes a new one.
	Snapshot string
	// Offset is where the window starts, in UTF-8 bytes from the start of
	// the snapshot: a previous window's NextOffset, or 0.
	Offset int
	// Selector, when set, scopes the read to the elements that match this
	// CSS selector: their outerHTML (or text), one after another, each on
	// a line of its own.
	Selector string
	// Text reads the visible text (innerText) instead of the HTML.
	Text bool
}

// DOMWindow is one window of a DOM snapshot, from [Watcher.ReadDOM].
type DOMWindow struct {
	// Content is the window: HTML, or text when DOMOptions.Text is set,
	// cut on a UTF-8 boundary.
	Content string
	// Snapshot names the serialisation the page holds for further windows,
	// until it is read to the end or goes unread for SnapshotTTL.
	Snapshot string
	// Offset is where Content starts, and NextOffset where the next window
	// starts, in UTF-8 bytes; NextOffset is 0 when Content reaches the end.
	Offset, NextOffset int
	// Size is the exact UTF-8 size of the whole snapshot, or -1 in the
	// first window of a page with non-ASCII text: the page counts it after
	// answering, and later windows have it.
	Size int
	// Changed reports that the page's DOM changed since the snapshot was
	// taken: the windows still come from the snapshot, never a mix.
	Changed bool
}

// Notice is the line a reader of a cut window needs: what it holds, and
// how to read on, such as "<!-- bytes 0-102397 of 5242880 in snapshot s1
// (cut at 102400); read on from offset 102397 of snapshot s1 -->". It is
// empty for a window that reaches the end.
func (d DOMWindow) Notice(maxBytes int) string {
	if d.NextOffset == 0 {
		return ""
	}
	of := " of " + strconv.Itoa(d.Size)
	if d.Size < 0 {
		of = ""
	}
	return "<!-- bytes " + strconv.Itoa(d.Offset) + "-" + strconv.Itoa(d.Offset+len(d.Content)) + of +
		" in snapshot " + d.Snapshot + " (cut at " + strconv.Itoa(maxBytes) +
		"); read on from offset " + strconv.Itoa(d.NextOffset) + " of snapshot " + d.Snapshot + " -->"
}

// windowJS serialises the page once and keeps the text in the page, so
// consecutive windows come from one serialisation and only a window
// crosses the CDP socket, base64-encoded (a third over the window's bytes,
// where JSON escapes of non-ASCII text would double them). A snapshot is
// kept for SnapshotTTL seconds after its last read, three at most, and
// dropped once read to the end; a MutationObserver notes a change of the
// page meanwhile. Byte offsets map to string indexes by the marks each
// window leaves for the next; any other offset is found by encoding from
// the start. encodeInto never splits a code point.
const windowJS = `(op, ttl, keep) => {
	const K = Symbol.for("tabguard.dom"), enc = new TextEncoder();
	const store = globalThis[K] || (globalThis[K] = {n: 0, snaps: new Map()});
	const drop = (s) => { clearTimeout(s.timer); if (s.obs) s.obs.disconnect(); store.snaps.delete(s.id); };
	let s;
	if (op.snapshot) {
		s = store.snaps.get(op.snapshot);
		if (!s) return {gone: true};
	} else {
		let h;
		if (op.selector) {
			let els;
			try { els = document.querySelectorAll(op.selector); } catch (e) { return {badSelector: String(e.message)}; }
			if (!els.length) return {noMatch: true};
			h = Array.from(els, e => op.text ? e.innerText : e.outerHTML).join("\n");
		} else if (op.text) {
			h = document.body ? document.body.innerText : "";
		} else {
			h = document.documentElement ? document.documentElement.outerHTML : "";
		}
		// An all-ASCII text's size is its length. Otherwise counting the
		// exact UTF-8 size of 5 MB takes a third as long as serialising it,
		// so it runs after this window has answered: the next window has it.
		let size = h.length;
		const count = () => {
			const chunk = 65536, buf = new Uint8Array(3 * chunk);
			let n = 0;
			for (let i = 0; i < h.length;) {
				let j = Math.min(i + chunk, h.length);
				const c = h.charCodeAt(j - 1);
				if (j < h.length && c >= 0xd800 && c <= 0xdbff) j--;
				n += enc.encodeInto(h.slice(i, j), buf).written;
				i = j;
			}
			return n;
		};
		if (/[^\x00-\x7f]/.test(h)) size = -1;
		s = {id: "s" + (++store.n), h, size, marks: new Map([[0, 0]]), changed: false};
		if (typeof MutationObserver === "function") {
			s.obs = new MutationObserver(() => { s.changed = true; s.obs.disconnect(); s.obs = null; });
			s.obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
		}
		store.snaps.set(s.id, s);
		for (const old of store.snaps.values()) if (store.snaps.size > keep) drop(old);
		if (size < 0) setTimeout(() => { if (s.size < 0) s.size = count(); }, 0);
	}
	clearTimeout(s.timer);
	s.timer = setTimeout(() => drop(s), ttl * 1000);
	let i = s.marks.get(op.offset);
	if (i === undefined) {
		if (s.size >= 0 && op.offset > s.size) return {badOffset: true, size: s.size};
		const buf = new Uint8Array(op.offset + 4);
		const r = enc.encodeInto(s.h, buf.subarray(0, op.offset));
		if (r.written !== op.offset) return {badOffset: true, size: s.size};
		i = r.read;
	}
	const out = new Uint8Array(op.max);
	const {read, written} = enc.encodeInto(s.h.slice(i, i + op.max), out);
	const end = i + read >= s.h.length;
	if (end) s.size = op.offset + written;
	let bin = "";
	for (let k = 0; k < written; k += 8192) bin += String.fromCharCode.apply(null, out.subarray(k, Math.min(k + 8192, written)));
	const res = {id: s.id, size: s.size, changed: s.changed, next: end ? 0 : op.offset + written, b64: btoa(bin)};
	if (end) drop(s); else s.marks.set(op.offset + written, i + read);
	return res;
}`

// ReadDOM reads one window of the page's HTML, or of its visible text,
// with the deadline and refusals of [Watcher.Eval]. The page serialises
// itself once, into a snapshot it keeps; the window comes from it, cut on
// a UTF-8 boundary, and so do the next ones when DOMOptions names the
// snapshot and the offset the last window gave: they join up exactly, even
// if the page changes meanwhile (DOMWindow.Changed then says so). Only the
// window crosses the CDP socket.
//
// A snapshot the page no longer holds gives [ErrSnapshotGone]; a selector
// that matches nothing gives [ErrNoMatch] naming it; a bad selector, a
// negative or too small MaxBytes or an offset inside a character gives
// [ErrInvalidArgument].
func (w *Watcher) ReadDOM(ctx context.Context, opts DOMOptions) (DOMWindow, error) {
	if err := opts.check(); err != nil {
		return DOMWindow{}, err
	}
	max := opts.MaxBytes
	if max == 0 {
		max = DefaultMaxDOMBytes
	}
	op := map[string]any{"snapshot": opts.Snapshot, "offset": opts.Offset, "max": max, "selector": opts.Selector, "text": opts.Text}
	res, err := w.Eval(ctx, windowJS, op, SnapshotTTL.Seconds(), maxSnapshots)
	if err != nil {
		return DOMWindow{}, err
	}
	v := res.Value
	switch {
	case v.Get("gone").Bool():
		return DOMWindow{}, fmt.Errorf("%w: %s: the page navigated, or it went unread for %v: read again from offset 0 without a snapshot",
			ErrSnapshotGone, opts.Snapshot, SnapshotTTL)
	case v.Get("noMatch").Bool():
		return DOMWindow{}, fmt.Errorf("%w: %q", ErrNoMatch, opts.Selector)
	case v.Has("badSelector"):
		return DOMWindow{}, fmt.Errorf("%w: selector %q: %s", ErrInvalidArgument, opts.Selector, v.Get("badSelector").Str())
	case v.Get("badOffset").Bool():
		return DOMWindow{}, fmt.Errorf("%w: offset %d is not where a character starts in snapshot %s: pass 0 or a NextOffset",
			ErrInvalidArgument, opts.Offset, opts.Snapshot)
	}
	content, err := base64.StdEncoding.DecodeString(v.Get("b64").Str())
	if err != nil || !utf8.Valid(content) {
		return DOMWindow{}, fmt.Errorf("read DOM: the page sent a window that is not UTF-8: %v", err)
	}
	return DOMWindow{
		Content:    string(content),
		Snapshot:   v.Get("id").Str(),
		Offset:     opts.Offset,
		NextOffset: v.Get("next").Int(),
		Size:       v.Get("size").Int(),
		Changed:    v.Get("changed").Bool(),
	}, nil
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
