package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tabguard/tabguard/internal/pagejs"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

const (
	// DefaultMaxDOMBytes caps a DOM read when no cap is given.
	DefaultMaxDOMBytes = 100 * 1024
	// UncappedDOM, as DOM's maxBytes, reads the whole page.
	UncappedDOM = math.MaxInt
	// maxWindowBytes caps a ReadDOM window: the page builds it in one
	// buffer.
	maxWindowBytes = 64 << 20
	// SnapshotTTL is how long a page keeps a DOM snapshot that nobody reads.
	SnapshotTTL = time.Minute
	// maxSnapshots is how many snapshots a page keeps at once; a new one
	// pushes the oldest out.
	maxSnapshots = 3
)

// DOM is a page's HTML as DOM reads it; the backends' DOM types have the
// same fields.
type DOM struct {
	HTML      string
	Size      int
	Truncated bool
}

// DOMOptions says what ReadDOM reads; the backends' DOMOptions types have
// the same fields.
type DOMOptions struct {
	MaxBytes int
	Snapshot string
	Offset   int
	Selector string
	Text     bool
	Frame    string
}

// DOMWindow is one window of a DOM snapshot; the backends' DOMWindow
// types have the same fields.
type DOMWindow struct {
	Content            string
	Snapshot           string
	Offset, NextOffset int
	Size               int
	Changed            bool
}

// DOM reads the tab's HTML capped at maxBytes under the guard of Do. A
// maxBytes of 0 means DefaultMaxDOMBytes; a negative one is an
// ErrInvalidArgument. The page measures and slices its own HTML, so about
// maxBytes cross the CDP socket.
func (t *Tab) DOM(ctx context.Context, maxBytes int) (DOM, error) {
	if !t.tracing(ctx) {
		return t.dom(ctx, maxBytes)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpDOM)
	d, err := t.dom(ctx, maxBytes)
	t.callDone(ctx, rec, err)
	return d, err
}

// dom is DOM.
func (t *Tab) dom(ctx context.Context, maxBytes int) (DOM, error) {
	if maxBytes < 0 {
		return DOM{}, fmt.Errorf("%w: maxBytes %d: pass 0 for the default or a positive cap", tabstate.ErrInvalidArgument, maxBytes)
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxDOMBytes
	}
	var v struct {
		Size int    `json:"size"`
		Head string `json:"head"`
	}
	if err := t.evalValue(ctx, "DOM read", &v, pagejs.DOM, maxBytes); err != nil {
		return DOM{}, err
	}
	if v.Size <= maxBytes && len(v.Head) <= maxBytes {
		return DOM{HTML: v.Head, Size: len(v.Head)}, nil
	}
	// The page cut on a code-point boundary already; cutting again here
	// only matters if the page's count and Go's differ (lone surrogates).
	return DOM{HTML: WithNotice(v.Head[:RuneCut(v.Head, maxBytes)], v.Size, maxBytes, t.b.cfg.Notice), Size: v.Size, Truncated: true}, nil
}

// ReadDOM reads one window of the page's HTML, or of its visible text,
// under the guard of Do. The page serialises itself once into a snapshot
// it keeps; windows read with its name and the last NextOffset join up
// exactly, even if the page changes meanwhile. Only the window crosses the
// CDP socket.
func (t *Tab) ReadDOM(ctx context.Context, opts DOMOptions) (DOMWindow, error) {
	if !t.tracing(ctx) {
		return t.readDOM(ctx, opts)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpReadDOM)
	w, err := t.readDOM(ctx, opts)
	t.callDone(ctx, rec, err)
	return w, err
}

// readDOM is ReadDOM.
func (t *Tab) readDOM(ctx context.Context, opts DOMOptions) (DOMWindow, error) {
	if err := opts.check(); err != nil {
		return DOMWindow{}, err
	}
	max := opts.MaxBytes
	if max == 0 {
		max = DefaultMaxDOMBytes
	}
	op := windowOp{Snapshot: opts.Snapshot, Offset: opts.Offset, Max: max, Selector: opts.Selector, Text: opts.Text}
	var v struct {
		Gone        bool    `json:"gone"`
		NoMatch     bool    `json:"noMatch"`
		BadOffset   bool    `json:"badOffset"`
		Changed     bool    `json:"changed"`
		BadSelector *string `json:"badSelector"`
		ID          string  `json:"id"`
		B64         string  `json:"b64"`
		Size        int     `json:"size"`
		Next        int     `json:"next"`
	}
	var err error
	if opts.Frame != "" {
		err = t.frameValue(ctx, "DOM read", opts.Frame, &v, pagejs.Window, op, SnapshotTTL.Seconds(), maxSnapshots)
	} else {
		err = t.evalValue(ctx, "DOM read", &v, pagejs.Window, op, SnapshotTTL.Seconds(), maxSnapshots)
	}
	if err != nil {
		return DOMWindow{}, err
	}
	switch {
	case v.Gone:
		return DOMWindow{}, fmt.Errorf("%w: %s: the page navigated, or it went unread for %v: read again from offset 0 without a snapshot",
			tabstate.ErrSnapshotGone, opts.Snapshot, SnapshotTTL)
	case v.NoMatch:
		return DOMWindow{}, fmt.Errorf("%w: %q", tabstate.ErrNoMatch, opts.Selector)
	case v.BadSelector != nil:
		return DOMWindow{}, fmt.Errorf("%w: selector %q: %s", tabstate.ErrInvalidArgument, opts.Selector, *v.BadSelector)
	case v.BadOffset:
		return DOMWindow{}, fmt.Errorf("%w: offset %d is not where a character starts in snapshot %s: pass 0 or a NextOffset",
			tabstate.ErrInvalidArgument, opts.Offset, opts.Snapshot)
	}
	content, err := base64.StdEncoding.DecodeString(v.B64)
	if err != nil || !utf8.Valid(content) {
		return DOMWindow{}, fmt.Errorf("read DOM: the page sent a window that is not UTF-8: %v", err)
	}
	return DOMWindow{Content: string(content), Snapshot: v.ID, Offset: opts.Offset, NextOffset: v.Next, Size: v.Size, Changed: v.Changed}, nil
}

// windowOp is what pagejs.Window reads.
type windowOp struct {
	Snapshot string `json:"snapshot"`
	Offset   int    `json:"offset"`
	Max      int    `json:"max"`
	Selector string `json:"selector"`
	Text     bool   `json:"text"`
}

func (o DOMOptions) check() error {
	switch {
	case o.MaxBytes < 0 || o.MaxBytes > 0 && o.MaxBytes < utf8.UTFMax:
		return fmt.Errorf("%w: MaxBytes %d: pass 0 for the default or at least %d", tabstate.ErrInvalidArgument, o.MaxBytes, utf8.UTFMax)
	case o.MaxBytes > maxWindowBytes:
		return fmt.Errorf("%w: MaxBytes %d: a window holds at most %d bytes: read on from NextOffset, or use DOM for the whole page",
			tabstate.ErrInvalidArgument, o.MaxBytes, maxWindowBytes)
	case o.Offset < 0:
		return fmt.Errorf("%w: Offset %d: pass 0 or a NextOffset", tabstate.ErrInvalidArgument, o.Offset)
	case o.Offset > 0 && o.Snapshot == "":
		return fmt.Errorf("%w: Offset %d without a Snapshot: pass the Snapshot its window came from", tabstate.ErrInvalidArgument, o.Offset)
	}
	return nil
}

// Notice is the line a reader of a cut window needs: what it holds, and
// how to read on. It is empty for a window that reaches the end.
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

// evalValue runs the JavaScript function fn with args under the guard of
// Do, as op, and decodes the value it returns into v.
func (t *Tab) evalValue(ctx context.Context, op string, v any, fn string, args ...any) error {
	expr, err := Expression(fn, args)
	if err != nil {
		return err
	}
	var res evaluateResult
	err = t.do(ctx, op, func(ctx context.Context) error {
		return t.s.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: expr, ReturnByValue: true, AwaitPromise: true}, &res)
	}, false)
	switch {
	case err != nil:
		return err
	case res.ExceptionDetails != nil:
		if t.b.cfg.Exception != nil {
			return t.b.cfg.Exception(res.ExceptionDetails)
		}
		return fmt.Errorf("script threw: %s", res.ExceptionDetails)
	}
	if err := json.Unmarshal(res.Result.Value, v); err != nil {
		return fmt.Errorf("read DOM: the page answered %.40q: %w", res.Result.Value, err)
	}
	return nil
}

// Expression is the expression that calls the JavaScript function fn with
// args, each sent as JSON: "(fn)(arg0,arg1)". fn is trimmed of blanks and
// semicolons; an empty one is an ErrInvalidArgument, as is an arg that
// JSON cannot encode.
func Expression(fn string, args []any) (string, error) {
	fn = strings.Trim(fn, "\t\n\v\f\r ;")
	if fn == "" {
		return "", fmt.Errorf("%w: empty script: pass a function such as `() => document.title`", tabstate.ErrInvalidArgument)
	}
	var b strings.Builder
	b.WriteByte('(')
	b.WriteString(fn)
	b.WriteString(")(")
	for i, a := range args {
		enc, err := json.Marshal(a)
		if err != nil {
			return "", fmt.Errorf("%w: arg %d: %w", tabstate.ErrInvalidArgument, i, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(enc)
	}
	b.WriteByte(')')
	return b.String(), nil
}
