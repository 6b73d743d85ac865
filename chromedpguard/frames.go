package chromedpguard

import (
	"context"
	"fmt"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
)

// FrameInfo is one iframe of a tab, as [Watcher.Frames] lists it: its ID,
// its parent, its URL, whether it runs in a process of its own, whether it
// is still in its first load, and what an eval in it would get now. It is
// the rod backend's type too.
type FrameInfo = tabstate.FrameInfo

// Frames lists the tab's iframes in the order they were attached, from the
// tab's events, with no CDP call (a tab whose page loaded before it was
// watched has its frames learned once). An out-of-process iframe (site
// isolation, on in chromedp's default browser) is listed as any other,
// with OutOfProcess set; the iframes inside it are not listed.
func (w *Watcher) Frames() []FrameInfo { return w.t.Frames() }

// EvalFrame runs the JavaScript function js with args in the iframe
// frameID (a FrameInfo.ID) and returns its result by value, awaiting a
// returned promise, as [Watcher.Eval] does on the tab. The function runs
// in the frame's own page world, with the frame's window as this.
//
// The tab's refusals come first, then the frame's: a frame removed from
// the tab gives [ErrFrameDetached], one whose own renderer crashed
// [ErrFrameCrashed] naming its URL (the tab itself stays usable), and one
// whose load failed [ErrNoDocument] with the net error. A frame still in
// its first load (a lazy iframe out of view, a server that never answers)
// is waited for, within the deadline; the timeout then says so, and
// never answers from Chrome's empty initial document. A call in flight is
// cut short when its frame crashes or goes ([ErrFrameDetached]), moves to
// a process of its own ([ErrFrameDetached]: call again, and it reaches the
// frame there) or navigates ([ErrNavigated]). An out-of-process iframe is
// reached through a chromedp context of its own target, attached on first
// use and detached, leaving the frame and the tab open, when the frame
// moves on or the watcher closes. A JavaScript exception is a
// [*chromedp.ExceptionError], as for Eval.
//
// Args are sent as JSON; a [*runtime.RemoteObject] is an
// [ErrInvalidArgument], as it belongs to the execution context it came
// from.
func (w *Watcher) EvalFrame(ctx context.Context, frameID, js string, args ...any) (*runtime.RemoteObject, error) {
	enc, err := engine.FrameArgs(args, remoteArg)
	if err != nil {
		return nil, err
	}
	raw, err := w.t.EvalFrame(ctx, frameID, js, enc)
	if err != nil {
		return nil, err
	}
	var obj runtime.RemoteObject
	if err := jsonv2.Unmarshal(raw, &obj, chromedp.DefaultUnmarshalOptions); err != nil {
		return nil, fmt.Errorf("eval in frame: read the result: %w", err)
	}
	return &obj, nil
}

// remoteArg reports an arg that is a remote object, which EvalFrame
// refuses.
func remoteArg(a any) bool {
	switch a.(type) {
	case *runtime.RemoteObject, runtime.RemoteObject:
		return true
	}
	return false
}
