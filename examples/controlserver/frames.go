package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/tabstate"
)

// handleFrames serves GET /browser/frames?tab=ID.
func (s *Server) handleFrames(w http.ResponseWriter, r *http.Request) {
	t, err := s.tab(r.Context(), r.URL.Query().Get("tab"))
	if err != nil {
		writeError(w, err, "")
		return
	}
	frames := t.Frames()
	out := FramesResponse{Frames: []FrameInfo{}}
	for _, f := range frames {
		info := FrameInfo{Frame: f.ID, Parent: f.ParentID, URL: tabstate.ShownURL(f.URL), OutOfProcess: f.OutOfProcess, Loading: f.Loading}
		problem := f.Refusal
		if problem == nil {
			problem = frameReach(s.urls, frames, f.ID)
		}
		if problem != nil {
			_, info.Problem = apiError(problem)
		}
		out.Frames = append(out.Frames, info)
	}
	writeJSON(w, http.StatusOK, out)
}

// evalIn runs js on the tab, or in its iframe frame when frame is not
// empty, and decodes the result into out. A frame is reached only at a URL
// the policy allows (frameReach), checked before the call and again once
// its result is in hand, so a frame that loaded a page the policy refuses
// meanwhile gives nothing of it away.
func (s *Server) evalIn(ctx context.Context, t *tabguard.Watcher, frame string, out any, js string, args ...any) error {
	if frame == "" {
		return evalInto(ctx, t, out, js, args...)
	}
	if err := frameReach(s.urls, t.Frames(), frame); err != nil {
		return err
	}
	res, err := t.EvalFrame(ctx, frame, js, args...)
	if err != nil {
		return frameError(t, frame, err)
	}
	if err := frameReach(s.urls, t.Frames(), frame); err != nil {
		return err
	}
	if err := res.Value.Unmarshal(out); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}

// frameDOM reads the HTML of iframe frame of t, capped at maxBytes (0 means
// tabguard.DefaultMaxDOMBytes), as t.DOM reads the page's: cut on a UTF-8
// boundary and followed by tabguard's notice, under the URL policy as
// evalIn is.
func (s *Server) frameDOM(ctx context.Context, t *tabguard.Watcher, frame string, maxBytes int) (DOMResponse, error) {
	if maxBytes == 0 {
		maxBytes = tabguard.DefaultMaxDOMBytes
	}
	if err := frameReach(s.urls, t.Frames(), frame); err != nil {
		return DOMResponse{}, err
	}
	opts := tabguard.DOMOptions{Frame: frame, MaxBytes: maxBytes}
	win, err := t.ReadDOM(ctx, opts)
	if err == nil && win.NextOffset != 0 && win.Size < 0 {
		// The page counts a snapshot with non-ASCII text after its first
		// window; the next window knows the size.
		opts.Snapshot, opts.Offset, opts.MaxBytes = win.Snapshot, win.NextOffset, 4
		var next tabguard.DOMWindow
		next, err = t.ReadDOM(ctx, opts)
		win.Size = next.Size
	}
	if err != nil {
		return DOMResponse{}, frameError(t, frame, err)
	}
	if err := frameReach(s.urls, t.Frames(), frame); err != nil {
		return DOMResponse{}, err
	}
	if win.NextOffset == 0 {
		return DOMResponse{HTML: win.Content, Size: len(win.Content)}, nil
	}
	html := win.Content + "\n" + tabguard.DefaultNotice(len(win.Content), win.Size, maxBytes)
	return DOMResponse{HTML: html, Size: win.Size, Truncated: true}, nil
}

// frameURLError is a call in a frame whose page the URL policy refuses: a
// 403.
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

// frameLoadError is a call in a frame that timed out waiting for the
// frame's first page: a 504 that names what to do.
type frameLoadError struct {
	lazy bool // the frame never started a load: a lazy iframe out of view, or one with no page
	err  error
}

func (e *frameLoadError) Error() string { return e.err.Error() }
func (e *frameLoadError) Unwrap() error { return e.err }

// advice names the endpoints that help.
func (e *frameLoadError) advice() string {
	if e.lazy {
		return "scroll the iframe into view with POST /browser/scroll, or GET /browser/frames for the frames that loaded"
	}
	return "GET /browser/frames for the frames that loaded"
}

// frameError marks err of a call in frame id of t as a frameLoadError when
// the call waited for the frame's first page to its deadline.
func frameError(t *tabguard.Watcher, id string, err error) error {
	var te *tabguard.TimeoutError
	if !errors.As(err, &te) || te.Cause != tabguard.TimeoutLoading {
		return err
	}
	fe := &frameLoadError{err: err}
	for _, f := range t.Frames() {
		if f.ID == id && f.URL == "" {
			fe.lazy = true
		}
	}
	return fe
}
