package agentprompt

import "github.com/tabguard/tabguard"

// TabOf returns the ID of the tab in tabs (watchers by target ID) that
// holds frame: the tab itself (its main frame has the tab's ID) or one
// with that iframe; "" when none does. tabs is read, never changed: pass
// a copy the server's lock no longer guards.
func TabOf(tabs map[string]*tabguard.Watcher, frame string) string {
	if _, ok := tabs[frame]; ok {
		return frame
	}
	for id, w := range tabs {
		for _, f := range w.Frames() {
			if f.ID == frame {
				return id
			}
		}
	}
	return ""
}
