package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tabguard/tabguard/internal/pagejs"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// OpSnapshot names Snapshot in a timeout.
const OpSnapshot = "snapshot"

// noticeRoom is what a snapshot keeps of its bytes for its notice line.
const noticeRoom = 128

// Snapshot lists the elements of the tab a user acts on or reads by,
// with a ref for each, under the guard of Do: the main frame's, then each
// iframe's in the order Frames lists them, each frame read by a script in
// its own document, out-of-process ones too. The pages count their
// elements and build only the window opts asks for, so a page of any
// size answers at most opts' caps. One deadline bounds the whole
// snapshot: ctx's, or else the eval timeout. An iframe that cannot answer
// (gone, crashed, still loading) is left out and named in Skipped; a
// timeout, or a refusal of the tab, fails the snapshot.
func (t *Tab) Snapshot(ctx context.Context, opts tabstate.SnapshotOptions) (tabstate.Snapshot, error) {
	if !t.tracing(ctx) {
		return t.snapshot(ctx, opts)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpSnapshot)
	s, err := t.snapshot(ctx, opts)
	t.callDone(ctx, rec, err)
	return s, err
}

// snapshotOp is what pagejs.Snapshot reads.
type snapshotOp struct {
	Offset   int    `json:"offset"`
	Max      int    `json:"max"`
	MaxBytes int    `json:"maxBytes"`
	Base     int    `json:"base"`
	Selector string `json:"selector"`
	Prefix   string `json:"prefix"`
	First    bool   `json:"first"`
}

// snapshotReply is what pagejs.Snapshot answers.
type snapshotReply struct {
	BadSelector *string `json:"badSelector"`
	NoMatch     bool    `json:"noMatch"`
	Total       int     `json:"total"`
	N           int     `json:"n"`
	Cut         string  `json:"cut"`
	Els         []struct {
		R, O, N, V string
		F          int
		X, Y, W, H float64
	} `json:"els"`
}

// snapshotPart is one frame a snapshot reads: "" is the main frame.
type snapshotPart struct{ id, url string }

// snapshot is Snapshot.
func (t *Tab) snapshot(ctx context.Context, opts tabstate.SnapshotOptions) (tabstate.Snapshot, error) {
	if err := checkSnapshot(opts); err != nil {
		return tabstate.Snapshot{}, err
	}
	maxEls, maxBytes := opts.MaxElements, opts.MaxBytes
	if maxEls == 0 {
		maxEls = tabstate.DefaultSnapshotElements
	}
	if maxBytes == 0 {
		maxBytes = tabstate.DefaultSnapshotBytes
	}
	s := tabstate.Snapshot{Offset: opts.Offset}
	parts := t.snapshotParts(opts, &s)
	if _, ok := ctx.Deadline(); !ok && len(parts) > 1 {
		// One deadline for all the frames, not one each.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	skip, room, full := opts.Offset, maxBytes-noticeRoom, false
	for _, p := range parts {
		op := snapshotOp{Offset: skip, Max: maxEls - len(s.Elements), MaxBytes: room - len(s.String()),
			Base: t.refBase(), Selector: opts.Selector, First: len(s.Elements) == 0}
		if full {
			op.Max = 0
		}
		var v snapshotReply
		var err error
		if p.id == "" {
			err = t.evalValue(ctx, OpSnapshot, &v, pagejs.Snapshot, op)
		} else {
			op.Prefix = "f" + strconv.Itoa(t.refFrame(p.id))
			err = t.frameValue(ctx, OpSnapshot, p.id, &v, pagejs.Snapshot, op)
		}
		if err == nil {
			err = v.check(opts.Selector)
		}
		if err != nil {
			if p.id == "" || opts.Frame != "" || !frameOnly(err) {
				return tabstate.Snapshot{}, err
			}
			s.Skipped = append(s.Skipped, tabstate.SkippedFrame{ID: p.id, URL: p.url, Reason: reason(err)})
			continue
		}
		t.sawRefs(v.N)
		s.Total += v.Total
		skip = max(skip-v.Total, 0)
		full = full || v.Cut != ""
		for _, e := range v.Els {
			s.Elements = append(s.Elements, element(op.Prefix, p.id, e.R, e.O, e.N, e.V, e.F, e.X, e.Y, e.W, e.H))
		}
	}
	return trimSnapshot(s, maxBytes), nil
}

// refFrames numbers the iframes whose elements a snapshot gave refs: the
// k of a ref "f<k>e12". The numbers hold for one document of the main
// frame; a new one forgets them, so a ref of an earlier page names no
// frame. Numbers are never given twice in a Tab's life, nor are element
// numbers (base): a document's registry starts past every number the
// Tab has seen, so the ref of an element of an earlier document is
// unknown to a later one instead of naming another element.
type refFrames struct {
	loader string // the main frame's document the numbers hold for
	nav    uint64 // (tabstate.Tab.Committed)
	ids    map[int]string
	ks     map[string]int
	last   int // the last k given
	base   int // the highest element number a registry reported
}

// current forgets the numbers if the main frame holds another document
// than the one they were given in. t.mu must be held.
func (t *Tab) currentRefs() *refFrames {
	r := &t.refs
	loader, nav := t.tab.Committed()
	if r.ids == nil || r.loader != loader || r.nav != nav {
		r.loader, r.nav = loader, nav
		r.ids, r.ks = map[int]string{}, map[string]int{}
	}
	return r
}

// refFrame is the k of frame id's refs, given now if the frame has none.
func (t *Tab) refFrame(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.currentRefs()
	k, ok := r.ks[id]
	if !ok {
		r.last++
		k = r.last
		r.ks[id], r.ids[k] = k, id
	}
	return k
}

// refBase is where a new registry starts numbering its elements.
func (t *Tab) refBase() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refs.base
}

// sawRefs notes the last number a registry gave.
func (t *Tab) sawRefs(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refs.base = max(t.refs.base, n)
}

// RefTarget says where the element a snapshot named ref lives: frameID
// is its frame ("" for the main frame) and local its ref within that
// frame, as pagejs.FindRef takes it ("e12"). A malformed ref is an
// ErrInvalidArgument. A ref of a frame the tab no longer has, or one
// given for an earlier document of the main frame, is an ErrStaleRef. A
// main-frame ref is looked up by the page: one of an earlier document is
// unknown there.
func (t *Tab) RefTarget(ref string) (frameID, local string, err error) {
	k, local, ok := parseRef(ref)
	if !ok {
		return "", "", fmt.Errorf("%w: ref %q: pass one a snapshot gave, as e12 or f1e3", tabstate.ErrInvalidArgument, ref)
	}
	if k == 0 {
		return "", local, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.currentRefs().ids[k]
	if _, there := t.tab.Frame(id); !ok || !there {
		return "", "", fmt.Errorf("%w: %s: the page navigated since the snapshot that gave it, or its frame went: "+
			"take a fresh snapshot with Watcher.Snapshot", tabstate.ErrStaleRef, ref)
	}
	return id, local, nil
}

// parseRef splits "f<k>e<n>" or "e<n>" into k (0 for the main frame) and
// "e<n>"; k and n are positive, written without leading zeros.
func parseRef(ref string) (k int, local string, ok bool) {
	frame := ""
	local = ref
	if len(ref) > 0 && ref[0] == 'f' {
		i := 1
		for i < len(ref) && ref[i] != 'e' {
			i++
		}
		frame, local = ref[1:i], ref[i:]
		if k, ok = positive(frame); !ok {
			return 0, "", false
		}
	}
	if len(local) < 2 || local[0] != 'e' {
		return 0, "", false
	}
	if _, ok := positive(local[1:]); !ok {
		return 0, "", false
	}
	return k, local, true
}

// positive reads s as a positive decimal number without a sign or
// leading zeros.
func positive(s string) (int, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
