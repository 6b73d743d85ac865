package engine

import (
	"errors"
	"fmt"

	"github.com/tabguard/tabguard/tabstate"
)

// checkSnapshot refuses options no snapshot can honour.
func checkSnapshot(o tabstate.SnapshotOptions) error {
	switch {
	case o.MaxElements < 0:
		return fmt.Errorf("%w: MaxElements %d: pass 0 for the default or a positive cap", tabstate.ErrInvalidArgument, o.MaxElements)
	case o.MaxBytes < 0 || o.MaxBytes > 0 && o.MaxBytes < tabstate.MinSnapshotBytes:
		return fmt.Errorf("%w: MaxBytes %d: pass 0 for the default or at least %d", tabstate.ErrInvalidArgument, o.MaxBytes, tabstate.MinSnapshotBytes)
	case o.Offset < 0:
		return fmt.Errorf("%w: Offset %d: pass 0 or a NextOffset", tabstate.ErrInvalidArgument, o.Offset)
	}
	return nil
}

// snapshotParts are the frames a snapshot with opts reads, in order;
// iframes that cannot answer now go to s.Skipped.
func (t *Tab) snapshotParts(opts tabstate.SnapshotOptions, s *tabstate.Snapshot) []snapshotPart {
	switch {
	case opts.Frame == t.id:
		return []snapshotPart{{}}
	case opts.Frame != "":
		return []snapshotPart{{id: opts.Frame}}
	}
	parts := []snapshotPart{{}}
	if opts.Selector != "" {
		return parts
	}
	for _, f := range t.Frames() {
		switch {
		case f.Refusal != nil:
			s.Skipped = append(s.Skipped, tabstate.SkippedFrame{ID: f.ID, URL: f.URL, Reason: reason(f.Refusal)})
		case f.Loading:
			s.Skipped = append(s.Skipped, tabstate.SkippedFrame{ID: f.ID, URL: f.URL, Reason: "frame still loading"})
		default:
			parts = append(parts, snapshotPart{id: f.ID, url: f.URL})
		}
	}
	return parts
}

// check turns the page's refusal of the walk into its error.
func (v *snapshotReply) check(selector string) error {
	switch {
	case v.BadSelector != nil:
		return fmt.Errorf("%w: selector %q: %s", tabstate.ErrInvalidArgument, selector, *v.BadSelector)
	case v.NoMatch:
		return fmt.Errorf("%w: %q", tabstate.ErrNoMatch, selector)
	}
	return nil
}

// frameOnly reports an error of a call in an iframe that concerns that
// frame alone: the frame's refusal or a script it broke. A timeout, the
// caller's end and the tab's refusals concern the whole snapshot.
func frameOnly(err error) bool {
	var be *tabstate.BlockedError
	if errors.As(err, &be) {
		return be.Frame != ""
	}
	return !ctxError(err) && !errors.Is(err, tabstate.ErrWatcherClosed) && !errors.Is(err, tabstate.ErrEvalTimeout)
}

// reason is err as a SkippedFrame's Reason: a refusal's sentinel, as
// "frame crashed", or the error's text.
func reason(err error) string {
	var be *tabstate.BlockedError
	if errors.As(err, &be) && be.Reason != nil {
		return be.Reason.Error()
	}
	return err.Error()
}

// element is one element of a page's answer, in frame (its ID, "" for
// the main frame) whose refs begin with prefix.
func element(prefix, frame, ref, role, name, value string, f int, x, y, w, h float64) tabstate.SnapshotElement {
	e := tabstate.SnapshotElement{Ref: prefix + ref, Role: role, Name: name, Value: value, Frame: frame,
		Disabled: f&1 != 0, Focused: f&64 != 0, Offscreen: f&128 != 0, X: x, Y: y, W: w, H: h}
	switch {
	case f&2 != 0:
		e.Checked = "true"
	case f&4 != 0:
		e.Checked = "false"
	case f&8 != 0:
		e.Checked = "mixed"
	}
	switch {
	case f&16 != 0:
		e.Expanded = "true"
	case f&32 != 0:
		e.Expanded = "false"
	}
	return e
}

// trimSnapshot sets s's counts, dropping elements from its end, the first
// kept, until its text fits maxBytes: the pages count UTF-8 as the text
// has it, but for the escapes of a quoted name.
func trimSnapshot(s tabstate.Snapshot, maxBytes int) tabstate.Snapshot {
	size := len(s.String()) // with no notice: NextOffset is 0
	for {
		s.Shown = len(s.Elements)
		s.NextOffset = 0
		if s.Offset+s.Shown < s.Total {
			s.NextOffset = s.Offset + s.Shown
		}
		n := size
		if notice := s.Notice(); notice != "" {
			n += len(notice) + 1
		}
		if s.Shown <= 1 || n <= maxBytes {
			return s
		}
		size -= len(s.Elements[s.Shown-1].String()) + 1
		s.Elements = s.Elements[:s.Shown-1]
	}
}
