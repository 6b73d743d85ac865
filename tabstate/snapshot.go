package tabstate

import (
	"strconv"
	"strings"
)

const (
	// DefaultSnapshotElements caps the elements of a snapshot when
	// SnapshotOptions.MaxElements is 0.
	DefaultSnapshotElements = 500
	// DefaultSnapshotBytes caps a snapshot's text (Snapshot.String) when
	// SnapshotOptions.MaxBytes is 0: 100 KiB, as a DOM read.
	DefaultSnapshotBytes = 100 * 1024
	// MinSnapshotBytes is the smallest MaxBytes a snapshot takes, so a
	// window always has room for an element.
	MinSnapshotBytes = 1024
)

// SnapshotOptions says which elements a snapshot lists. The zero value
// lists the first DefaultSnapshotElements elements of the tab, its iframes
// included, in at most DefaultSnapshotBytes.
type SnapshotOptions struct {
	// MaxElements caps the elements listed; 0 means DefaultSnapshotElements.
	MaxElements int
	// MaxBytes caps the snapshot's text, in UTF-8 bytes, its notice
	// included; 0 means DefaultSnapshotBytes, and the least is
	// MinSnapshotBytes.
	MaxBytes int
	// Offset skips the first Offset elements, to read on from a
	// snapshot's NextOffset. Windows of the same document join exactly,
	// as long as the page does not change in between.
	Offset int
	// Selector scopes the snapshot to the subtrees this CSS selector
	// matches, in the frame Frame names (or the main frame, and then no
	// iframe's elements). One that matches nothing is an ErrNoMatch.
	Selector string
	// Frame lists that frame's elements only (a FrameInfo.ID, or the
	// tab's target ID for the main frame); empty lists the main frame's,
	// then each iframe's in the order Frames lists them.
	Frame string
}

// Snapshot is the elements of a tab that a user acts on or reads by, in
// document order, frame by frame: links, buttons, form fields, widgets
// with a role, editable and clickable elements, headings, images with
// alt text and labelled landmarks. Hidden elements are left out.
type Snapshot struct {
	// Elements are the elements listed, Shown of them.
	Elements []SnapshotElement
	// Shown is len(Elements), and Total the elements the snapshot found:
	// more than Shown when a cap cut it.
	Shown, Total int
	// Offset is the first element's place among the Total: the
	// SnapshotOptions' Offset.
	Offset int
	// NextOffset is the Offset that reads on; 0 when the snapshot reaches
	// the last element.
	NextOffset int
	// Skipped are the iframes whose elements the snapshot could not list.
	Skipped []SkippedFrame
}

// SkippedFrame is an iframe a snapshot left out, and why.
type SkippedFrame struct {
	// ID is the frame's ID, and URL its document or the page it loads.
	ID, URL string
	// Reason is why, as "frame crashed" or "frame still loading".
	Reason string
}

// SnapshotElement is one element of a [Snapshot].
type SnapshotElement struct {
	// Ref names the element to an action (Action.Ref) until the next
	// navigation: "e12" in the main frame, "f2e12" in an iframe.
	Ref string
	// Role is its ARIA role, given or implied ("link", "button",
	// "textbox", "heading", "navigation"), or its tag name for an element
	// that is clickable only ("div").
	Role string
	// Name is its accessible name: from aria-labelledby, aria-label, its
	// label, alt, its text, title or placeholder, whitespace collapsed,
	// at most 100 characters.
	Name string
	// Value is what a field holds, at most 100 characters; a password
	// field's value is never listed.
	Value string
	// Frame is the ID of its frame; empty for the main frame.
	Frame string
	// Disabled reports that it is disabled.
	Disabled bool
	// Checked is "true", "false" or "mixed" for a checkbox, radio or an
	// element with aria-checked; empty for others.
	Checked string
	// Expanded is "true" or "false" for an element with aria-expanded or
	// a <summary>; empty for others.
	Expanded string
	// Focused reports that it has the focus.
	Focused bool
	// Offscreen reports that it lies outside its frame's viewport: an
	// action scrolls to it, a screenshot misses it.
	Offscreen bool
	// X, Y, W and H are its box in CSS pixels of its frame's viewport.
	X, Y, W, H float64
}

// String renders the element in one line, as `e12 button "Buy now" [disabled]`.
func (e SnapshotElement) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e SnapshotElement) write(b *strings.Builder) {
	b.WriteString(e.Ref)
	b.WriteByte(' ')
	b.WriteString(e.Role)
	if e.Name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Name))
	}
	if e.Value != "" {
		b.WriteString(" value=")
		b.WriteString(strconv.Quote(e.Value))
	}
	if e.Disabled {
		b.WriteString(" [disabled]")
	}
	switch e.Checked {
	case "true":
		b.WriteString(" [checked]")
	case "false", "mixed":
		b.WriteString(" [checked=" + e.Checked + "]")
	}
	switch e.Expanded {
	case "true":
		b.WriteString(" [expanded]")
	case "false":
		b.WriteString(" [expanded=false]")
	}
	if e.Focused {
		b.WriteString(" [focused]")
	}
	if e.Offscreen {
		b.WriteString(" [offscreen]")
	}
}

// Notice is the line a reader of a cut snapshot needs, as
// "showing 500 of 50007 elements: read on with Offset 500"; empty when it
// reaches the last element.
func (s Snapshot) Notice() string {
	if s.NextOffset == 0 {
		return ""
	}
	from := ""
	if s.Offset > 0 {
		from = " from Offset " + strconv.Itoa(s.Offset)
	}
	return "showing " + strconv.Itoa(s.Shown) + " of " + strconv.Itoa(s.Total) + " elements" + from +
		": read on with Offset " + strconv.Itoa(s.NextOffset)
}

// String renders the snapshot for a reader: one line an element, then a
// line for each iframe left out, then the Notice when a cap cut it.
func (s Snapshot) String() string {
	var b strings.Builder
	for _, e := range s.Elements {
		e.write(&b)
		b.WriteByte('\n')
	}
	for _, f := range s.Skipped {
		b.WriteString(f.line())
		b.WriteByte('\n')
	}
	if n := s.Notice(); n != "" {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return b.String()
}

func (f SkippedFrame) line() string {
	return "frame " + f.ID + " (" + ShownURL(f.URL) + ") left out: " + f.Reason
}
