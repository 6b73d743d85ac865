package main

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// session is a scenario's browser, its recorder and the tabs it records.
type session struct {
	ctx   context.Context
	b     *rod.Browser
	rec   *recorder
	base  string // the page server's URL
	cross string // the same server as another site: localhost for 127.0.0.1
	tabs  []recordedTab
}

// newTab opens a blank tab and attaches to it with the domains a watcher
// enables, recording it as Watch would find it: at about:blank, loaded.
func (s *session) newTab() (*rod.Page, error) {
	t, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(s.b)
	if err != nil {
		return nil, err
	}
	p, err := s.b.PageFromTarget(t.TargetID)
	if err != nil {
		return nil, err
	}
	if err := enable(p); err != nil {
		return nil, err
	}
	s.tabs = append(s.tabs, recordedTab{TargetID: string(p.TargetID), SessionID: string(p.SessionID),
		Start: &start{URL: "about:blank", Committed: true, Loaded: true}})
	return p, nil
}

// enable enables the domains whose events tabstate reads.
func enable(p *rod.Page) error {
	for _, call := range []func() error{
		func() error { return proto.PageEnable{}.Call(p) },
		func() error { return proto.NetworkEnable{}.Call(p) },
		func() error { return proto.InspectorEnable{}.Call(p) },
		func() error { return proto.PageSetLifecycleEventsEnabled{Enabled: true}.Call(p) },
	} {
		if err := call(); err != nil {
			return err
		}
	}
	return nil
}

// loadedTab opens a tab and loads the home page in it.
func (s *session) loadedTab() (*rod.Page, error) {
	p, err := s.newTab()
	if err != nil {
		return nil, err
	}
	from := s.rec.mark()
	if err := s.navigate(p, s.base+"/"); err != nil {
		return nil, err
	}
	return p, s.waitFor(p, from, "Page.loadEventFired")
}

// navigate sends Page.navigate; a load that fails is no error here.
func (s *session) navigate(p *rod.Page, url string) error {
	_, err := proto.PageNavigate{URL: url}.Call(p)
	return err
}

// waitFor waits for an event of p's session logged since from.
func (s *session) waitFor(p *rod.Page, from int, method string) error {
	_, _, err := s.rec.wait(s.ctx, from, method, func(m message) bool {
		return m.Method == method && m.SessionID == string(p.SessionID)
	})
	return err
}

// eval runs js in p as a user gesture, which popups and beforeunload need.
func eval(p *rod.Page, js string) error {
	res, err := proto.RuntimeEvaluate{Expression: js, UserGesture: true}.Call(p)
	if err == nil && res.ExceptionDetails != nil {
		err = fmt.Errorf("eval %s: %s", js, res.ExceptionDetails.Text)
	}
	return err
}
