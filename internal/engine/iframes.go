package engine

import "github.com/tabguard/tabguard/tabstate"

// iframeTarget is an out-of-process iframe's own target, as the browser
// session tells of it: Chrome gives it the frame's ID.
type iframeTarget struct {
	url string
}

// iframeSeen records an iframe target from Target.targetCreated,
// Target.targetInfoChanged or a list, and tells the tabs that have the
// frame that it runs in a process of its own.
func (b *Browser) iframeSeen(info TargetInfo) {
	b.fmu.Lock()
	if b.iframeTargets == nil {
		b.iframeTargets = map[string]iframeTarget{}
	}
	b.iframeTargets[info.TargetID] = iframeTarget{url: info.URL}
	b.fmu.Unlock()
	for _, t := range b.watched() {
		t.frameEvent(info.TargetID, func(tab *tabstate.Tab) tabstate.Change { return tab.FrameMoved(info.TargetID, info.URL) })
	}
}

// iframes records the iframe targets of a list (Target.getTargets).
func (b *Browser) iframes(infos []TargetInfo) {
	for _, i := range infos {
		if i.Type == "iframe" {
			b.iframeSeen(i)
		}
	}
}

// iframeCrashed takes in Target.targetCrashed of an iframe target, for the
// tabs that have the frame; it reports false for a target that is no
// iframe the Browser knows.
func (b *Browser) iframeCrashed(id, status string) bool {
	b.fmu.Lock()
	_, ok := b.iframeTargets[id]
	b.fmu.Unlock()
	if !ok {
		return false
	}
	ev := tabstate.TargetCrashed{TargetID: id, Status: status}
	for _, t := range b.watched() {
		t.frameEvent(id, func(tab *tabstate.Tab) tabstate.Change { return tab.Apply(ev) })
	}
	return true
}

// iframeGone forgets an iframe target that went; it reports false for a
// target that is no iframe the Browser knows. The frame itself leaves its
// tab by the tab's own events.
func (b *Browser) iframeGone(id string) bool {
	b.fmu.Lock()
	defer b.fmu.Unlock()
	_, ok := b.iframeTargets[id]
	delete(b.iframeTargets, id)
	return ok
}

// iframeURL reports whether frame id has a target of its own (it runs out
// of process), and the target's URL.
func (b *Browser) iframeURL(id string) (string, bool) {
	b.fmu.Lock()
	defer b.fmu.Unlock()
	it, ok := b.iframeTargets[id]
	return it.url, ok
}

// watched returns every watched tab.
func (b *Browser) watched() []*Tab {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.all()
}

// frameEvent applies apply to the tab's state when the tab has frame id,
// and acts on what it changed, as Apply does.
func (t *Tab) frameEvent(id string, apply func(*tabstate.Tab) tabstate.Change) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if _, ok := t.tab.Frame(id); !ok {
		return
	}
	change := apply(&t.tab)
	if change == 0 {
		return
	}
	t.cutFrames()
	t.broadcast()
}
