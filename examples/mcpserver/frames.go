package main

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/tabstate"
)

func (t *browserTools) listFrames(ctx context.Context, _ *mcp.CallToolRequest, in TabInput) (*mcp.CallToolResult, ListFramesOutput, error) {
	w, err := t.tab(ctx, in.Tab)
	if err != nil {
		return nil, ListFramesOutput{}, toolError(err)
	}
	frames := w.Frames()
	out := ListFramesOutput{Frames: []FrameInfo{}}
	for _, f := range frames {
		info := FrameInfo{Frame: f.ID, Parent: f.ParentID, URL: tabstate.ShownURL(f.URL), OutOfProcess: f.OutOfProcess, Loading: f.Loading}
		problem := f.Refusal
		if problem == nil {
			problem = frameReach(t.urls, frames, f.ID)
		}
		if problem != nil {
			info.Problem = toolError(problem).Error()
		}
		out.Frames = append(out.Frames, info)
	}
	return nil, out, nil
}

// evalInFrame is eval_in_tab with a frame: the JavaScript runs in that
// iframe's own page, under the URL policy (frameReach).
func (t *browserTools) evalInFrame(ctx context.Context, w *tabguard.Watcher, frame, js string) (*proto.RuntimeRemoteObject, error) {
	if err := frameReach(t.urls, w.Frames(), frame); err != nil {
		return nil, err
	}
	res, err := w.EvalFrame(ctx, frame, js)
	if err != nil {
		return nil, err
	}
	// Checked again, as the result is in hand: a frame that loaded a page
	// the policy refuses since the first check gives nothing of it away.
	if err := frameReach(t.urls, w.Frames(), frame); err != nil {
		return nil, err
	}
	return res, nil
}

// readFrameDOM is ReadDOM in opts.Frame, under the URL policy as
// evalInFrame is.
func (t *browserTools) readFrameDOM(ctx context.Context, w *tabguard.Watcher, opts tabguard.DOMOptions) (tabguard.DOMWindow, error) {
	if err := frameReach(t.urls, w.Frames(), opts.Frame); err != nil {
		return tabguard.DOMWindow{}, err
	}
	win, err := w.ReadDOM(ctx, opts)
	if err != nil {
		return tabguard.DOMWindow{}, err
	}
	if err := frameReach(t.urls, w.Frames(), opts.Frame); err != nil {
		return tabguard.DOMWindow{}, err
	}
	return win, nil
}

// frameURLError is a call in a frame whose page the URL policy refuses.
type frameURLError struct {
	frame string
	err   error // matches tabguard.ErrURLBlocked
}

func (e *frameURLError) Error() string { return "frame " + e.frame + ": " + e.err.Error() }
func (e *frameURLError) Unwrap() error { return e.err }

// frameReach returns nil when the URL policy lets the server into frame id
// of frames (URLPolicy.CheckFrame), and otherwise a *frameURLError.
func frameReach(p *tabguard.URLPolicy, frames []tabguard.FrameInfo, id string) error {
	if err := p.CheckFrame(frames, id); err != nil {
		return &frameURLError{frame: id, err: err}
	}
	return nil
}
