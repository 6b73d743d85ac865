package chromedpguard

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// ErrNotActionable means an action found its element but could not act on
// it as a user would: covered, hidden, of no size, moving, disabled or not
// editable. The error's first words are the reason, as `covered by <div
// id="cookie-banner">`.
var ErrNotActionable = tabstate.ErrNotActionable

// ErrStaleRef means an action was given a ref that no longer names an
// element: the page navigated since the snapshot that gave it, or rendered
// the element again. A fresh snapshot gives fresh refs.
var ErrStaleRef = tabstate.ErrStaleRef

// Action is one thing a user does on a page, for [Watcher.Act].
type Action = tabstate.Action

// ActionKind is what an [Action] does.
type ActionKind = tabstate.ActionKind

// The kinds of [Action].
const (
	ActionClick       = tabstate.ActionClick
	ActionDoubleClick = tabstate.ActionDoubleClick
	ActionRightClick  = tabstate.ActionRightClick
	ActionHover       = tabstate.ActionHover
	ActionFill        = tabstate.ActionFill
	ActionPress       = tabstate.ActionPress
	ActionSelect      = tabstate.ActionSelect
	ActionScroll      = tabstate.ActionScroll
)

// Acted is what an action did, and what it set off.
type Acted = tabstate.Acted

// ActionNavigation is a navigation an action started.
type ActionNavigation = tabstate.ActionNavigation

// ActionDialog is a JavaScript dialog an action opened.
type ActionDialog = tabstate.ActionDialog

// Act does what a says on the tab's page as a user would, bounded by
// ctx's deadline or Options.EvalTimeout, and says what it did and what it
// set off: a navigation (pending, committed or failed; Act does not wait
// for it), a JavaScript dialog, a download, new tabs.
//
// Before it acts it checks the element: attached, rendered with a size,
// scrolled into the viewport, still over two animation frames when it is
// animated, enabled, editable to fill, and, for the mouse, the element a
// hit-test finds at its centre. Until it passes, Act checks again until
// the deadline, unless a.NoWait. The input goes out as CDP Input events on
// the tab's session. Only input that reaches the element, or one inside
// it, is let through: a press another element takes does nothing and is
// never a success.
//
// An element that never became actionable answers an error whose first
// words are the last reason found, matching [ErrNotActionable], and
// [ErrEvalTimeout] when the deadline ran out. A selector that matches
// nothing is an [ErrNoMatch] that names the frames where it does match; a
// ref of an earlier page, or of an element rendered again, is an
// [ErrStaleRef]. A tab that cannot answer is refused as by Eval.
func (w *Watcher) Act(ctx context.Context, a Action) (Acted, error) { return w.t.Act(ctx, a) }

// Click clicks the element selector finds in the main frame with the left
// button, as [Watcher.Act] does.
func (w *Watcher) Click(ctx context.Context, selector string) (Acted, error) {
	return w.t.Act(ctx, Action{Kind: ActionClick, Selector: selector})
}

// Fill types text into the editable element selector finds in the main
// frame, in place of what it holds, as [Watcher.Act] does; Acted.Value is
// its value read back. A read-only or disabled field is refused.
func (w *Watcher) Fill(ctx context.Context, selector, text string) (Acted, error) {
	return w.t.Act(ctx, Action{Kind: ActionFill, Selector: selector, Text: text})
}

// Press presses key, as KeyboardEvent.key names it ("Enter", "Escape",
// "a"), on the element that has the focus, as [Watcher.Act] does.
func (w *Watcher) Press(ctx context.Context, key string) (Acted, error) {
	return w.t.Act(ctx, Action{Kind: ActionPress, Key: key})
}
