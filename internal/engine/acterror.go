package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tabguard/tabguard/internal/pagejs"
	"github.com/tabguard/tabguard/tabstate"
)

// actionError is an action that was not done, with the reason first: the
// last reason its checks found, what was not done, and what to do.
type actionError struct {
	sentinel error // tabstate.ErrNotActionable, ErrNoMatch, ErrStaleRef or ErrInvalidArgument
	reason   string
	what     string // "click on <button id="t">"
	advice   string
	retry    bool          // checking again may find the element ready
	limit    time.Duration // the time the action had, when it ran out
	cause    error         // the deadline's *tabstate.TimeoutError, or ctx's error
}

func (e *actionError) Error() string {
	var b strings.Builder
	b.WriteString(e.reason)
	b.WriteString(": ")
	b.WriteString(e.what)
	b.WriteString(" not done")
	if e.limit > 0 {
		b.WriteString(" in " + e.limit.String())
	}
	if e.advice != "" {
		b.WriteString(": " + e.advice)
	}
	return b.String()
}

// Unwrap matches the sentinel and, when the action ran out of time, the
// timeout.
func (e *actionError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.sentinel, e.cause}
	}
	return []error{e.sentinel}
}

// what names an action on an element: `click on <button id="t">`, or on
// the selector or ref when no element was found.
func what(a tabstate.Action, el string) string {
	switch {
	case el != "":
	case a.Ref != "":
		el = a.Ref
	case a.Selector != "":
		el = strconv.Quote(a.Selector)
	default:
		return string(a.Kind)
	}
	return string(a.Kind) + " on " + el
}

// adviceFor is the remedy of a reason pagejs.Act gives, by its first
// words.
func adviceFor(reason string) string {
	first, _, _ := strings.Cut(reason, " ")
	switch first {
	case "covered":
		return "dismiss what covers it first (act on it, or on its close button), or act on what covers it"
	case "hidden", "not":
		if strings.HasPrefix(reason, "not editable") {
			return "fill a text field, a textarea or a contenteditable element"
		}
		return "wait until it shows, or act on a visible element (Watcher.Snapshot lists them)"
	case "of":
		return "wait until it has a size, or act on a visible element (Watcher.Snapshot lists them)"
	case "moving":
		return "it is animated: act once it stops, or on an element that stays"
	case "disabled":
		return "enable it first: the page enables it when what it needs is done"
	case "read-only":
		return "fill an editable field: this one takes no typing"
	case "outside":
		return "scroll the page to it first (a scroll action on it)"
	case "cannot":
		return "close what holds the focus first"
	case "has", "option", "takes":
		return "pass the values or labels of options it has"
	}
	return ""
}

// refusedAction is the error of a check that found the element not
// actionable, or none.
func (t *Tab) refusedAction(ctx context.Context, a tabstate.Action, frame string, c checked) *actionError {
	e := &actionError{sentinel: tabstate.ErrNotActionable, reason: c.Reason, what: what(a, c.El), retry: c.Retry}
	switch c.None {
	case "":
		e.advice = adviceFor(c.Reason)
	case "badSelector":
		e.sentinel, e.reason = tabstate.ErrInvalidArgument, "selector "+strconv.Quote(a.Selector)+" is not valid CSS ("+c.Detail+")"
	case "gone":
		e.sentinel, e.reason = tabstate.ErrStaleRef, "ref "+a.Ref+" is of an earlier page"
		e.advice = "take fresh refs with Watcher.Snapshot"
	case "replaced":
		e.sentinel = tabstate.ErrStaleRef
		e.reason = "element " + a.Ref + " was replaced (the page rendered it again)"
		if a.Ref == "" {
			e.reason = "element " + strconv.Quote(a.Selector) + " was replaced (the page rendered it again)"
		}
		e.advice = "take fresh refs with Watcher.Snapshot"
	case "noMatch":
		e.sentinel, e.reason = tabstate.ErrNoMatch, "no element matches "+strconv.Quote(a.Selector)
		where, advice := t.elsewhere(ctx, a.Selector, frame)
		if frame != "" {
			e.reason += " in frame " + frame
		}
		e.reason += where
		e.advice = advice
	}
	if e.sentinel != tabstate.ErrNotActionable && e.sentinel != tabstate.ErrNoMatch {
		e.retry = false
	}
	return t.worded(e)
}

// worded lets Advice.Word word e's advice.
func (t *Tab) worded(e *actionError) *actionError {
	if t.b.cfg.Advice != nil && t.b.cfg.Advice.Word != nil {
		e.advice = t.b.cfg.Advice.Word(e, e.advice)
	}
	return e
}

// elsewhere says in which other frames of the tab selector matches, and
// how to act there.
func (t *Tab) elsewhere(ctx context.Context, selector, asked string) (where, advice string) {
	var found []string
	first := ""
	for _, f := range append([]tabstate.FrameInfo{{ID: ""}}, t.Frames()...) {
		if f.ID == asked || f.Refusal != nil || f.Loading {
			continue
		}
		var n int
		if err := t.inFrameValue(ctx, "count", f.ID, &n, pagejs.ActCount, selector); err != nil || n == 0 {
			continue
		}
		name := "the main frame"
		if f.ID != "" {
			name = "frame " + f.ID + " (" + tabstate.ShownURL(f.URL) + ")"
			if first == "" {
				first = f.ID
			}
		}
		found = append(found, strconv.Itoa(n)+" in "+name)
	}
	switch {
	case len(found) == 0:
		return "", "check the selector: Watcher.Snapshot lists what the page holds"
	case first == "":
		return ", but " + strings.Join(found, ", ") + " match", "leave Action.Frame empty for the main frame"
	}
	return ", but " + strings.Join(found, ", ") + " match", "pass Action.Frame " + strconv.Quote(first) + " (Watcher.Frames lists the frames)"
}

// gaveUp is the answer of action a, which had limit, whose checks ended
// with err: the deadline, ctx's end, or a refusal. A refusal is the
// answer; an end of time is the last reason the checks found, with the
// timeout.
func gaveUp(a tabstate.Action, limit time.Duration, last *actionError, err error) error {
	if last == nil {
		return err
	}
	var te *tabstate.TimeoutError
	switch {
	case errors.As(err, &te):
		last.limit = te.Limit
	case errors.Is(err, context.DeadlineExceeded):
		last.limit = limit
		err = &tabstate.TimeoutError{Op: string(a.Kind), Limit: limit, Doing: "the element was " + last.reason + " at its last check"}
	case !ctxError(err):
		return err
	}
	last.cause = err
	return last
}
