package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabguard/tabguard/internal/pagejs"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// backoff paces the checks of an element that is not actionable yet, as
// Playwright's retries are paced: the last pause repeats until the
// deadline. It paces; the caller's deadline bounds.
var backoff = []time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond}

// checked is what pagejs.Act answers.
type checked struct {
	OK     bool    `json:"ok"`
	None   string  `json:"none"`
	Detail string  `json:"detail"`
	Reason string  `json:"reason"`
	Retry  bool    `json:"retry"`
	El     string  `json:"el"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Value  string  `json:"value"`
}

// heard is what pagejs.ActRead answers.
type heard struct {
	Armed    bool   `json:"armed"`
	Received string `json:"received"`
	Blocked  string `json:"blocked"`
	Value    string `json:"value"`
	Navigate *struct {
		URL      string `json:"url"`
		Download bool   `json:"download"`
		Same     bool   `json:"same"`
	} `json:"navigate"`
}

// actOp is the argument of pagejs.Act.
type actOp struct {
	Kind     tabstate.ActionKind `json:"kind"`
	Selector string              `json:"selector,omitempty"`
	Ref      string              `json:"ref,omitempty"`
	Values   []string            `json:"values,omitempty"`
}

// before is what the tab had counted when an action pressed, to tell what
// the press set off.
type before struct {
	navigations, dialogs, downloads, targets uint64
	loader                                   string
}

// Act does what a says on the tab's page as a user would, under the guard
// of Do, and says what it did and set off. Before it acts it checks the
// element: attached, rendered with a size, scrolled into the viewport,
// still over two animation frames when it is animated, enabled, editable
// for Fill, and the element a hit-test finds at its centre for the mouse.
// Until the element passes, it checks again, paced as Playwright does, until
// ctx's deadline (or the eval timeout), unless a.NoWait. The input goes
// out as CDP Input events on the tab's session. A listener armed with the
// hit-test lets through only input that reaches the element, so a press
// that another element takes does nothing and is not a success.
//
// The answer carries what the input set off, as far as it was known once
// the page had handled the input: the main-frame navigation, given the
// engine's patience to commit, fail or become a download, and reported
// pending after it; a JavaScript dialog; a download and its fate; the tabs
// it opened.
//
// An element that never became actionable answers an error whose first
// words are the last reason seen, matching tabstate.ErrNotActionable, and
// the *tabstate.TimeoutError of the deadline when it ran out. A selector
// that matches nothing is a tabstate.ErrNoMatch, naming the frames where it
// does match; a stale ref is a tabstate.ErrStaleRef.
func (t *Tab) Act(ctx context.Context, a tabstate.Action) (tabstate.Acted, error) {
	if !t.tracing(ctx) {
		return t.act(ctx, a)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpAct)
	acted, err := t.act(ctx, a)
	t.callDone(ctx, rec, err)
	return acted, err
}

// act is Act.
func (t *Tab) act(ctx context.Context, a tabstate.Action) (tabstate.Acted, error) {
	if ctx == nil {
		return tabstate.Acted{}, fmt.Errorf("%w: nil context", tabstate.ErrInvalidArgument)
	}
	if err := checkAction(a); err != nil {
		return tabstate.Acted{}, err
	}
	frame, local := a.Frame, ""
	if a.Ref != "" {
		var err error
		if frame, local, err = t.RefTarget(a.Ref); err != nil {
			if errors.Is(err, tabstate.ErrStaleRef) {
				return tabstate.Acted{}, t.worded(&actionError{sentinel: tabstate.ErrStaleRef, what: what(a, ""),
					reason: "ref " + a.Ref + " is of an earlier page, or of a frame that went", advice: "take fresh refs with Watcher.Snapshot"})
			}
			return tabstate.Acted{}, err
		}
	}
	op := actOp{Kind: a.Kind, Selector: a.Selector, Ref: local, Values: a.Values}
	// The checks go on until the action's deadline: ctx's, or the eval
	// timeout's.
	limit, deadline, _ := t.bound(ctx, time.Now())
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if a.Kind == tabstate.ActionPress && a.Selector == "" && a.Ref == "" {
		return t.press(ctx, a, frame, checked{}, 0, 0)
	}
	var last *actionError
	for try := 0; ; try++ {
		if try > 0 {
			if err := pause(ctx, backoff[min(try, len(backoff)-1)]); err != nil {
				return tabstate.Acted{}, gaveUp(a, limit, last, err)
			}
		}
		var c checked
		err := t.inFrameValue(ctx, string(a.Kind), frame, &c, pagejs.Act, op)
		if err != nil {
			return tabstate.Acted{}, gaveUp(a, limit, last, err)
		}
		if !c.OK {
			last = t.refusedAction(ctx, a, frame, c)
			if !c.Retry || a.NoWait {
				return tabstate.Acted{}, last
			}
			continue
		}
		switch a.Kind {
		case tabstate.ActionScroll:
			return tabstate.Acted{Kind: a.Kind, Element: c.El}, nil
		case tabstate.ActionSelect:
			return tabstate.Acted{Kind: a.Kind, Element: c.El, Value: c.Value}, nil
		}
		dx, dy, err := t.frameOffset(ctx, string(a.Kind), frame)
		if err != nil {
			return tabstate.Acted{}, err
		}
		acted, err := t.press(ctx, a, frame, c, dx, dy)
		var missed *actionError
		if errors.As(err, &missed) && missed.retry && !a.NoWait {
			last = missed
			continue // the press did nothing: check again
		}
		return acted, err
	}
}

// checkAction refuses an Action that names no action or no element.
func checkAction(a tabstate.Action) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{tabstate.ErrInvalidArgument}, args...)...)
	}
	switch a.Kind {
	case tabstate.ActionClick, tabstate.ActionDoubleClick, tabstate.ActionRightClick, tabstate.ActionHover, tabstate.ActionFill, tabstate.ActionScroll:
	case tabstate.ActionPress:
		if _, ok := keyFor(a.Key); !ok {
			return bad("key %q: pass a key as KeyboardEvent.key names it (%s, or one character)", a.Key, strings.Join(keyNames(), ", "))
		}
	case tabstate.ActionSelect:
		if len(a.Values) == 0 {
			return bad("select with no Values: pass the options' values or labels")
		}
	default:
		return bad("action kind %q: pass click, double-click, right-click, hover, fill, press, select or scroll", a.Kind)
	}
	switch {
	case a.Selector != "" && a.Ref != "":
		return bad("both Selector %q and Ref %q: pass one", a.Selector, a.Ref)
	case a.Ref != "" && a.Frame != "":
		return bad("Frame with Ref %q: a ref names its frame itself", a.Ref)
	case a.Selector == "" && a.Ref == "" && a.Kind != tabstate.ActionPress:
		return bad("%s of no element: pass a Selector or a Ref", a.Kind)
	}
	return nil
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	if d == 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inFrameValue runs fn with args in the frame (the main frame for "") and
// decodes its value into v, under the guard.
func (t *Tab) inFrameValue(ctx context.Context, op, frame string, v any, fn string, args ...any) error {
	if frame == "" {
		return t.evalValue(ctx, op, v, fn, args...)
	}
	return t.frameValue(ctx, op, frame, v, fn, args...)
}

// press sends the input of a, whose element c passed its checks (Press
// without an element sends keys to the focused one), at c's point moved
// by the frame's offset, and reads what it set off.
func (t *Tab) press(ctx context.Context, a tabstate.Action, frame string, c checked, dx, dy float64) (tabstate.Acted, error) {
	acted := tabstate.Acted{Kind: a.Kind, Element: c.El}
	if a.Kind != tabstate.ActionPress && a.Kind != tabstate.ActionFill {
		acted.X, acted.Y = c.X+dx, c.Y+dy
	}
	at := t.counted()
	err := t.do(ctx, string(a.Kind), func(ctx context.Context) error {
		for _, in := range inputs(a, acted.X, acted.Y) {
			if err := t.s.Call(ctx, in.method, in.params, nil); err != nil {
				return err
			}
		}
		return nil
	}, false)
	if err != nil && !t.setOff(at) {
		return tabstate.Acted{}, err
	}
	if a.Kind == tabstate.ActionPress && c.El == "" {
		return t.effects(ctx, acted, at, nil), nil
	}
	if err != nil {
		// A dialog or a download cut the press short: the page took it.
		acted.Received = c.El
		return t.effects(ctx, acted, at, nil), nil
	}
	h, err := t.readHeard(ctx, string(a.Kind), frame, at)
	if err != nil {
		return tabstate.Acted{}, err
	}
	switch {
	case !h.Armed:
		// The document is gone: the page navigated, which only input that
		// reached the element lets it do.
		acted.Received = c.El
	case h.Received == "" && h.Blocked != "" && a.Kind != tabstate.ActionHover:
		return tabstate.Acted{}, t.worded(&actionError{sentinel: tabstate.ErrNotActionable, retry: true, what: what(a, c.El),
			reason: "covered by " + h.Blocked + " when pressed", advice: adviceFor("covered")})
	case h.Received == "" && a.Kind != tabstate.ActionFill:
		return tabstate.Acted{}, t.worded(&actionError{sentinel: tabstate.ErrNotActionable, retry: true, what: what(a, c.El),
			reason: "no element received the " + inputName(a.Kind), advice: "check that the element takes input, or act on the one that does"})
	default:
		acted.Received = h.Received
	}
	if a.Kind == tabstate.ActionFill {
		acted.Value = h.Value
	}
	return t.effects(ctx, acted, at, h.Navigate), nil
}

// readHeard reads what the listener heard, unless the page navigates
// first: a pending navigation holds the page's calls, so the read gives way
// to the navigation's news and answers an unarmed listener.
func (t *Tab) readHeard(ctx context.Context, op, frame string, at before) (heard, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		if t.await(rctx, maxWait(rctx), func() bool { return t.tab.Navigations() > at.navigations }) {
			cancel(errNavigating)
		}
	}()
	var h heard
	err := t.inFrameValue(rctx, op, frame, &h, pagejs.ActRead)
	switch {
	case err == nil:
		return h, nil
	case context.Cause(rctx) == errNavigating, errors.Is(err, tabstate.ErrNavigated):
		return heard{}, nil
	}
	return heard{}, err
}

// errNavigating is the cause of a read that gave way to a navigation.
var errNavigating = errors.New("the page navigated")

// counted is what the tab has counted so far.
func (t *Tab) counted() before {
	t.mu.Lock()
	at := before{navigations: t.tab.Navigations(), dialogs: t.tab.Dialogs(), downloads: t.downloadsBegun}
	at.loader, _ = t.tab.Committed()
	t.mu.Unlock()
	at.targets = t.b.targetsSeen()
	return at
}

// setOff reports whether a dialog opened or a download began since at:
// what cuts a press short although the page took it.
func (t *Tab) setOff(at before) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tab.Dialogs() > at.dialogs || t.downloadsBegun > at.downloads
}

// effects fills in what the input set off since at, once the events
// Chrome sent before now are in. nav is the navigation the page noted.
func (t *Tab) effects(ctx context.Context, acted tabstate.Acted, at before, nav *struct {
	URL      string `json:"url"`
	Download bool   `json:"download"`
	Same     bool   `json:"same"`
}) tabstate.Acted {
	_ = t.b.sync(ctx)
	t.mu.Lock()
	started := t.tab.Navigations() > at.navigations
	t.mu.Unlock()
	if started || nav != nil && !nav.Same {
		// As Playwright's actions do, give the navigation the time to
		// commit, fail or become a download: within the engine's patience,
		// after which it is reported pending.
		t.await(ctx, t.b.patience(), func() bool {
			return t.tab.Navigations() > at.navigations && !t.tab.Navigating() || t.downloadsBegun > at.downloads
		})
		if t.abandoned(at) {
			// Chrome committed nothing: a download's first event trails
			// the navigation's end.
			t.await(ctx, t.b.downloadGrace(), func() bool { return t.downloadsBegun > at.downloads })
		}
	}
	abandoned := t.abandoned(at)
	t.mu.Lock()
	s := t.tab.State()
	if t.tab.Navigations() > at.navigations || nav != nil && !nav.Same && !nav.Download {
		n := &tabstate.ActionNavigation{URL: s.URL}
		if nav != nil {
			n.URL = nav.URL // the state's URL is the page's again once a navigation is abandoned
		}
		loader, _ := t.tab.Committed()
		switch {
		case abandoned:
			n.Error = "canceled: Chrome committed no document"
		case s.LoadError != "":
			n.Error = s.LoadError
		case !t.tab.Navigating() && loader != at.loader:
			n.Committed = true
		}
		acted.Navigation = n
	}
	if t.tab.Dialogs() > at.dialogs {
		acted.Dialog = &tabstate.ActionDialog{Type: t.lastDialog.Type, Message: t.lastDialog.Message}
	}
	if d := t.downloadAfter(at.downloads); d != nil {
		dl := d.d
		acted.Download = &dl
		if n := acted.Navigation; n != nil && !n.Committed && (abandoned || n.Error == "") {
			acted.Navigation = nil // the navigation became the download
		}
	} else if nav != nil && nav.Download {
		acted.Download = &tabstate.Download{URL: nav.URL, Name: urlName(nav.URL)}
	}
	t.mu.Unlock()
	acted.NewTabs = t.b.openedBy(t.id, at.targets)
	return acted
}

// abandoned reports whether the main-frame navigation the tab began since
// at ended without a document or an error: cancelled, or turned into a
// download.
func (t *Tab) abandoned(at before) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	loader, _ := t.tab.Committed()
	return t.tab.Navigations() > at.navigations && !t.tab.Navigating() && loader == at.loader && t.tab.State().LoadError == ""
}

// urlName is the last segment of a URL's path.
func urlName(u string) string {
	u, _, _ = strings.Cut(u, "?")
	u, _, _ = strings.Cut(u, "#")
	return u[strings.LastIndexByte(u, '/')+1:]
}

// targetsSeen is how many page targets the browser has seen.
func (b *Browser) targetsSeen() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.order
}

// openedBy lists the page targets that opener opened, seen after the
// n-th.
func (b *Browser) openedBy(opener string, n uint64) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for id, tg := range b.targets {
		if tg.n > n && tg.opener == opener {
			ids = append(ids, id)
		}
	}
	return ids
}

// frameOffset is where the frame's viewport starts in the tab's: the sum
// of the content boxes of the <iframe> elements that hold it, read from
// the browser (DOM.getFrameOwner, DOM.getBoxModel), for an in-process and
// an out-of-process frame alike. The main frame's is 0, 0.
func (t *Tab) frameOffset(ctx context.Context, op, frame string) (x, y float64, err error) {
	parents := make(map[string]string)
	for _, f := range t.Frames() {
		parents[f.ID] = f.ParentID
	}
	for id := frame; id != "" && id != t.id; id = parents[id] {
		var owner struct {
			BackendNodeID int64 `json:"backendNodeId"`
		}
		var box struct {
			Model struct {
				Content []float64 `json:"content"`
			} `json:"model"`
		}
		err := t.do(ctx, op, func(ctx context.Context) error {
			if err := t.s.Call(ctx, "DOM.getFrameOwner", map[string]string{"frameId": id}, &owner); err != nil {
				return err
			}
			return t.s.Call(ctx, "DOM.getBoxModel", map[string]int64{"backendNodeId": owner.BackendNodeID}, &box)
		}, false)
		if err != nil {
			return 0, 0, err
		}
		if len(box.Model.Content) < 2 {
			return 0, 0, fmt.Errorf("%s: the browser gave frame %s's <iframe> no box", op, id)
		}
		x, y = x+box.Model.Content[0], y+box.Model.Content[1]
	}
	return x, y, nil
}
