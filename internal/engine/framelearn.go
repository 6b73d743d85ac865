package engine

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// learnFrames learns the frames of a tab whose page was loaded before it
// was watched, once; a tab watched before its page committed knows them
// from its events. Frame news while it asks makes it ask again, up to
// learnTries times in all.
func (t *Tab) learnFrames() {
	for try := 0; try < learnTries; try++ {
		t.mu.Lock()
		known, seq := t.framesKnown, t.tab.FrameNews()
		t.framesKnown = true
		t.mu.Unlock()
		if known || t.learnFramesOnce(seq) {
			return
		}
	}
}

// learnTries bounds the asks of learnFrames.
const learnTries = 3

// learnFramesOnce asks the browser for the tab's frames and records them
// unless frame news arrived since seq; it reports whether they were
// recorded, and leaves the frames to learn otherwise.
func (t *Tab) learnFramesOnce(seq uint64) bool {
	ctx, cancel := context.WithTimeout(t.life, t.timeout)
	defer cancel()
	var (
		tree    frameTreeResult
		targets targetsResult
	)
	errs := together(
		func() error { return t.s.Call(ctx, "Page.getFrameTree", nil, &tree) },
		func() error { return t.b.d.Call(ctx, "Target.getTargets", nil, &targets) },
	)
	var frames []tabstate.Frame
	var walk func(n frameTree)
	walk = func(n frameTree) {
		for _, c := range n.ChildFrames {
			// A frame still in Chrome's initial empty document (a lazy
			// iframe out of view, a load not answered yet) has no URL in
			// the tree: it is waited for, as one the events told of.
			f := tabstate.Frame{ID: c.Frame.ID, ParentID: c.Frame.ParentID, URL: c.Frame.URL + c.Frame.URLFragment, Committed: c.Frame.URL != ""}
			if c.Frame.UnreachableURL != "" {
				f.URL, f.Committed, f.ErrorPage = c.Frame.UnreachableURL, false, true
			}
			frames = append(frames, f)
			walk(c)
		}
	}
	walk(tree.FrameTree)
	have := map[string]bool{tree.FrameTree.Frame.ID: true}
	for _, f := range frames {
		have[f.ID] = true
	}
	for _, i := range targets.TargetInfos {
		if i.Type == "iframe" && (i.ParentID == t.id || have[i.ParentFrameID]) && !have[i.TargetID] {
			frames = append(frames, tabstate.Frame{ID: i.TargetID, ParentID: i.ParentFrameID, URL: i.URL, Committed: i.URL != "", OutOfProcess: true})
		}
	}
	t.mu.Lock()
	learned := errs[0] == nil && errs[1] == nil && t.tab.FrameNews() == seq
	if learned {
		t.tab.LearnFrames(frames, seq)
		t.broadcast()
	} else {
		t.framesKnown = false
	}
	t.mu.Unlock()
	if learned {
		t.b.iframes(targets.TargetInfos)
	}
	return learned
}
