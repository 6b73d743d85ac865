package tabstate

import (
	"errors"
	"strconv"
	"strings"
)

// ErrNotActionable means an action found its element but could not act on
// it as a user would: it is covered, hidden, of no size, moving, disabled
// or not editable. The error's first words are the reason, as "covered by
// <div id="cookie-banner">".
var ErrNotActionable = errors.New("element not actionable")

// ErrStaleRef means an action was given a ref that no longer names an
// element: the page navigated since the snapshot that gave it, or
// re-rendered the element. A fresh snapshot gives fresh refs.
var ErrStaleRef = errors.New("stale ref")

// ActionKind is what an [Action] does.
type ActionKind string

const (
	// ActionClick presses and releases the left button on the element's centre.
	ActionClick ActionKind = "click"
	// ActionDoubleClick clicks twice, the second press with a click count of 2.
	ActionDoubleClick ActionKind = "double-click"
	// ActionRightClick presses and releases the right button, which opens a
	// context menu.
	ActionRightClick ActionKind = "right-click"
	// ActionHover moves the mouse onto the element's centre.
	ActionHover ActionKind = "hover"
	// ActionFill focuses an editable element, selects what it holds and types
	// Action.Text in its place, as a paste would; the value is read back.
	ActionFill ActionKind = "fill"
	// ActionPress presses Action.Key (such as "Enter", "Tab", "a") on the
	// element, focused first, or on the focused element when the Action
	// names none.
	ActionPress ActionKind = "press"
	// ActionSelect chooses the options of a <select> whose values or labels are
	// Action.Values, as a user would, and fires input and change.
	ActionSelect ActionKind = "select"
	// ActionScroll scrolls the element into view.
	ActionScroll ActionKind = "scroll"
)

// Action is one thing a user does on a page: what, and on which element.
// The element is Selector (a CSS selector, in the frame Frame names, or in
// the main frame) or Ref (from a snapshot), never both.
type Action struct {
	Kind     ActionKind
	Selector string
	// Frame is the ID of the frame Selector is asked in (FrameInfo.ID);
	// empty for the main frame. A Ref names its frame itself.
	Frame string
	Ref   string
	// Text is what ActionFill types.
	Text string
	// Key is what ActionPress presses: a key name as KeyboardEvent.key gives it
	// ("Enter", "Escape", "ArrowDown", "a").
	Key string
	// Values are what ActionSelect chooses: each an option's value or label.
	Values []string
	// NoWait refuses at once when the element is not actionable, where by
	// default the action checks it again, as Playwright's actions do,
	// until it is or the action's deadline passes.
	NoWait bool
}

// Acted is what an action did, and what it set off.
type Acted struct {
	Kind ActionKind
	// Element is the element acted on, as its opening tag shows it:
	// `<button id="buy">`.
	Element string
	// Received is the element that received the input, the Element or
	// one inside it (a <span> in a button); empty for ActionScroll and
	// ActionSelect, which send no input.
	Received string
	// X and Y are where the mouse went, in CSS pixels of the tab's
	// viewport; zero for an action without the mouse.
	X, Y float64
	// Value is the element's value after ActionFill or ActionSelect, read back.
	Value string
	// Navigation is the main-frame navigation the action started, if any.
	Navigation *ActionNavigation
	// Dialog is the JavaScript dialog the action opened, if any. It stays
	// open unless Options.Dialogs answers it, and refuses the tab's calls
	// until HandleDialog does.
	Dialog *ActionDialog
	// Download is the download the action started, if any, with its fate
	// as far as it was known when the action answered.
	Download *Download
	// NewTabs are the target IDs of the tabs the action opened.
	NewTabs []string
}

// ActionNavigation is a navigation an action started.
type ActionNavigation struct {
	URL string
	// Committed says the new document had committed when the action
	// answered; Error is the load's failure, as "net::ERR_CONNECTION_REFUSED".
	// Neither: it was still pending, and Watcher.Wait waits for it.
	Committed bool
	Error     string
}

// ActionDialog is a JavaScript dialog an action opened.
type ActionDialog struct{ Type, Message string }

// String says what the action did and set off, in one line:
// `click on <button id="buy">, navigation to https://shop.example/cart pending`.
func (a Acted) String() string {
	var b strings.Builder
	b.WriteString(string(a.Kind))
	b.WriteString(" on ")
	b.WriteString(a.Element)
	if a.Received != "" && a.Received != a.Element {
		b.WriteString(", received by " + a.Received + " inside it")
	}
	if a.Value != "" || a.Kind == ActionFill || a.Kind == ActionSelect {
		b.WriteString(", value now " + strconv.Quote(a.Value))
	}
	if n := a.Navigation; n != nil {
		b.WriteString(", navigation to " + ShownURL(n.URL))
		switch {
		case n.Error != "":
			b.WriteString(" failed: " + n.Error)
		case n.Committed:
			b.WriteString(" committed")
		default:
			b.WriteString(" pending")
		}
	}
	if d := a.Dialog; d != nil {
		b.WriteString(", opened " + d.Type + " dialog " + strconv.Quote(d.Message))
	}
	if d := a.Download; d != nil {
		b.WriteString(", download of " + strconv.Quote(d.Name))
		if d.State != "" {
			b.WriteString(" " + d.State)
		}
	}
	for _, id := range a.NewTabs {
		b.WriteString(", opened tab " + id)
	}
	return b.String()
}
