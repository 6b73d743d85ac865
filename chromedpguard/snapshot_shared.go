package chromedpguard

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// Snapshot is the elements of a tab that a user acts on or reads by, as
// [Watcher.Snapshot] lists them; its String renders one line an element,
// as `e12 button "Buy now" [disabled]`, and a notice when a cap cut it.
type Snapshot = tabstate.Snapshot

// SnapshotOptions says which elements [Watcher.Snapshot] lists and how
// many. The zero value lists up to DefaultSnapshotElements elements of the
// tab and its iframes in at most DefaultSnapshotBytes.
type SnapshotOptions = tabstate.SnapshotOptions

// SnapshotElement is one element of a [Snapshot]: its ref, role,
// accessible name, value, state and box.
type SnapshotElement = tabstate.SnapshotElement

// SkippedFrame is an iframe a [Snapshot] left out, and why.
type SkippedFrame = tabstate.SkippedFrame

const (
	// DefaultSnapshotElements caps a snapshot's elements when
	// SnapshotOptions.MaxElements is 0.
	DefaultSnapshotElements = tabstate.DefaultSnapshotElements
	// DefaultSnapshotBytes caps a snapshot's text when
	// SnapshotOptions.MaxBytes is 0: 100 KiB.
	DefaultSnapshotBytes = tabstate.DefaultSnapshotBytes
)

// Snapshot lists what an agent acts on: the tab's links, buttons, form
// fields, widgets with a role, editable and clickable elements, headings,
// images with alt text and labelled landmarks, each with a ref that
// [Watcher.Act] takes (Action.Ref) until the next navigation; an element
// keeps its ref across snapshots of the same page. Elements of iframes
// are listed after the main frame's, out-of-process ones too, with refs
// such as "f1e3". Hidden elements are left out; those outside the
// viewport are marked Offscreen.
//
// Each page builds its part of the list itself and counts past the caps
// without building more, so a page of any size answers at most
// opts.MaxElements elements in opts.MaxBytes. A cut snapshot says
// "showing N of M elements: read on with Offset N" (Snapshot.Notice), and
// the next window, read with that Offset, joins it exactly. The whole
// call is bounded by ctx's deadline, or Options.EvalTimeout: a busy page
// answers a timeout that says what it was doing, as Eval does. An iframe
// that cannot answer is left out and named in Snapshot.Skipped.
func (w *Watcher) Snapshot(ctx context.Context, opts SnapshotOptions) (Snapshot, error) {
	return w.t.Snapshot(ctx, opts)
}
