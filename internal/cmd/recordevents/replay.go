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
	// Frames are the iframes the tab ends with (Tab.Frames), [] for none.
	Frames []tabstate.Frame `json:"frames"`
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
// session it names. The browser session's news of an iframe target goes
// to the tab that has the frame of that ID: Target.targetCreated and
// Target.targetInfoChanged as Tab.FrameMoved, Target.targetCrashed as the
// TargetCrashed of the frame. The tests of package tabstate replay the
// same way.
func replay(tabs []recordedTab, events []message) []*tabstate.Tab {
	ts := make([]*tabstate.Tab, len(tabs))
	bySession, byTarget := map[string]*tabstate.Tab{}, map[string]*tabstate.Tab{}
	for i, rt := range tabs {
		ts[i] = &tabstate.Tab{MainFrame: rt.TargetID} // a page target's main frame has its ID
		if rt.Start != nil {
			ts[i].Learn(rt.Start.URL, rt.Start.Committed, 0)
			if rt.Start.Loaded {
				ts[i].LearnLoaded(0)
			}
		}
		bySession[rt.SessionID], byTarget[rt.TargetID] = ts[i], ts[i]
	}
	frameOf := func(id string) *tabstate.Tab {
		for _, t := range ts {
			if _, ok := t.Frame(id); ok {
				return t
			}
		}
		return nil
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
		case m.Method == "Target.targetCreated", m.Method == "Target.targetInfoChanged":
			if info, ok := iframeTarget(m); ok {
				if t := frameOf(info.TargetID); t != nil {
					t.FrameMoved(info.TargetID, info.URL)
				}
			}
			continue
		case m.Method == "Target.targetCrashed", m.Method == "Target.targetDestroyed":
			var p struct{ TargetID string }
			_ = json.Unmarshal(m.Params, &p)
			tab = byTarget[p.TargetID]
			if tab == nil && m.Method == "Target.targetCrashed" {
				tab = frameOf(p.TargetID)
			}
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
	return ts
}

// targetInfo is the part of a Target.TargetInfo a recording reads.
type targetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	URL      string `json:"url"`
}

// iframeTarget returns the target a Target.targetCreated or
// Target.targetInfoChanged tells of, when it is an iframe's: a frame of
// one of the tabs that runs in a renderer process of its own.
func iframeTarget(m message) (targetInfo, bool) {
	if m.Method != "Target.targetCreated" && m.Method != "Target.targetInfoChanged" {
		return targetInfo{}, false
	}
	var p struct {
		TargetInfo targetInfo `json:"targetInfo"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.TargetInfo.Type != "iframe" {
		return targetInfo{}, false
	}
	return p.TargetInfo, true
}
