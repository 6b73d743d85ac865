package main

import (
	"encoding/json"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// recordedTab is one tab of a recording, and the State its events leave it in.
type recordedTab struct {
	TargetID  string `json:"targetId"`
	SessionID string `json:"sessionId"`
	// Start is what a watcher attached before the recording learns of the
	// tab by asking (Tab.Learn, Tab.LearnLoaded); nil for a tab watched
	// from its creation.
	Start *start `json:"start,omitempty"`
	// Want is the State the tab ends in.
	Want tabstate.State `json:"want"`
}

type start struct {
	URL       string `json:"url"`
	Committed bool   `json:"committed"`
	Loaded    bool   `json:"loaded"`
}

// replay applies the recorded events to a Tab for each recorded tab,
// routing them as package tabguard's BrowserWatcher does (browser.go): an
// event of a page session goes to the tab of that session; of the browser
// session, Target.targetCrashed and Target.targetDestroyed go to the tab
// they name by target ID, Target.detachedFromTarget to the tab whose
// session it names. The tests of package tabstate replay the same way.
func replay(tabs []recordedTab, events []message) []tabstate.State {
	ts := make([]tabstate.Tab, len(tabs))
	bySession, byTarget := map[string]*tabstate.Tab{}, map[string]*tabstate.Tab{}
	for i, rt := range tabs {
		ts[i].MainFrame = rt.TargetID // a page target's main frame has its ID
		if rt.Start != nil {
			ts[i].Learn(rt.Start.URL, rt.Start.Committed, 0)
			if rt.Start.Loaded {
				ts[i].LearnLoaded(0)
			}
		}
		bySession[rt.SessionID], byTarget[rt.TargetID] = &ts[i], &ts[i]
	}
	for _, m := range events {
		if m.Command {
			continue
		}
		var tab *tabstate.Tab
		switch {
		case m.SessionID != "":
			if !strings.HasPrefix(m.Method, "Target.") { // a page session's own child targets are not the tab
				tab = bySession[m.SessionID]
			}
		case m.Method == "Target.targetCrashed", m.Method == "Target.targetDestroyed":
			var p struct{ TargetID string }
			_ = json.Unmarshal(m.Params, &p)
			tab = byTarget[p.TargetID]
		case m.Method == "Target.detachedFromTarget":
			var p struct{ SessionID string }
			_ = json.Unmarshal(m.Params, &p)
			tab = bySession[p.SessionID]
		}
		if tab == nil {
			continue
		}
		if ev, ok := tabstate.Decode(m.Method, m.Params); ok {
			tab.Apply(ev)
		}
	}
	out := make([]tabstate.State, len(ts))
	for i := range ts {
		out[i] = ts[i].State()
	}
	return out
}
