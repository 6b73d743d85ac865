package main

import (
	"encoding/json"

	"github.com/go-rod/rod"
)

// lifecycleScenarios record the lifecycle events of a main frame and its
// iframe (Page.lifecycleEvent), which newTab enables as a watcher does.
func lifecycleScenarios() []scenario {
	return []scenario{
		{name: "lifecycle", about: "a page with an iframe loads to network idle, then a navigation loads another page with one to network idle", run: lifecycle},
	}
}

func lifecycle(s *session) error {
	p, err := s.newTab()
	if err != nil {
		return err
	}
	for _, page := range []string{"/?src=/inner", "/next?src=/inner"} {
		from := s.rec.mark()
		if err := s.navigate(p, s.base+page); err != nil {
			return err
		}
		if err := s.waitMilestone(p, from, "networkIdle"); err != nil {
			return err
		}
	}
	return nil
}

// waitMilestone waits for the lifecycle event name of p's main frame,
// logged since from.
func (s *session) waitMilestone(p *rod.Page, from int, name string) error {
	_, _, err := s.rec.wait(s.ctx, from, "Page.lifecycleEvent "+name, func(m message) bool {
		if m.Method != "Page.lifecycleEvent" || m.SessionID != string(p.SessionID) {
			return false
		}
		var e struct{ FrameID, Name string }
		return json.Unmarshal(m.Params, &e) == nil && e.FrameID == string(p.TargetID) && e.Name == name
	})
	return err
}
