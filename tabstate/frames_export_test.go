package tabstate

import "sort"

// CloneFrames returns a copy of t, iframes and all, that events applied to
// either leave the other alone.
func CloneFrames(t *Tab) *Tab {
	c := CloneTab(t)
	if t.frames != nil {
		c.frames = make(map[string]*frame, len(t.frames))
		for id, f := range t.frames {
			g := *f
			c.frames[id] = &g
		}
	}
	return c
}

// frameKey is what decides the phases one iframe moves through from now on.
type frameKey struct {
	Frame
	loader, doc string
}

// FramesKey returns a comparable value equal for two tabs, of up to four
// iframes, whose iframes any sequence of events moves through the same
// frame phases: each frame with what the machine keeps of its loads. It
// leaves out the counters and the words no rule reads (a crash's status,
// which load error).
func FramesKey(t *Tab) any {
	var key [4]frameKey
	if len(t.frames) > len(key) {
		panic("FramesKey: more than four iframes")
	}
	i := 0
	for _, f := range t.frames {
		k := frameKey{Frame: f.Frame, loader: f.loader, doc: f.doc}
		k.CrashReason = ""
		if k.LoadError != "" {
			k.LoadError = "error"
		}
		key[i] = k
		i++
	}
	sort.Slice(key[:i], func(a, b int) bool { return key[a].ID < key[b].ID })
	return key
}
