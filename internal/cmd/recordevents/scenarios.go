package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// scenario is one recording: what it does to a tab, in steps, on a
// browser with site isolation on when isolated is set.
type scenario struct {
	name, about string
	run         func(*session) error
	isolated    bool
}

func scenarios() []scenario {
	return append(append(pageScenarios(), frameScenarios()...), lifecycleScenarios()...)
}

func pageScenarios() []scenario {
	return []scenario{
		{name: "load", about: "a healthy load of a page", run: func(s *session) error {
			_, err := s.loadedTab()
			return err
		}},
		{name: "crash-reload", about: "a loaded page crashes (Page.crash) and Page.reload recovers it", run: func(s *session) error {
			return s.crashThen(func(p *rod.Page) error { return proto.PageReload{}.Call(p) })
		}},
		{name: "crash-navigate", about: "a loaded page crashes (Page.crash) and Page.navigate loads another page", run: func(s *session) error {
			return s.crashThen(func(p *rod.Page) error { return s.navigate(p, s.base+"/next") })
		}},
		{name: "failed-load-home", about: "a load of a closed 127.0.0.1 port fails, then a navigation goes home", run: failedThenHome},
		{name: "unresolvable-host", about: "a new tab's first load is of a host that does not resolve", run: unresolvable},
		{name: "alert", about: "a page opens an alert, which Page.handleJavaScriptDialog accepts", run: alert},
		{name: "beforeunload-dismissed", about: "a navigation meets a beforeunload dialog, which is dismissed: the page stays", run: beforeunload},
		{name: "same-document", about: "a page changes its URL by an anchor and by history.pushState", run: sameDocument},
		{name: "popup", about: "a page opens a popup with window.open; both tabs are recorded, the popup from its creation", run: popup},
		{name: "closed", about: "a loaded tab is closed with Target.closeTarget", run: closed},
	}
}

// crashThen crashes a loaded tab, then recovers it with fix and waits for
// the load.
func (s *session) crashThen(fix func(*rod.Page) error) error {
	p, err := s.loadedTab()
	if err != nil {
		return err
	}
	from := s.rec.mark()
	ctx, cancel := context.WithTimeout(s.ctx, 300*time.Millisecond)
	_ = proto.PageCrash{}.Call(p.Context(ctx)) // Chrome never answers it
	cancel()
	if err := s.waitFor(p, from, "Inspector.targetCrashed"); err != nil {
		return err
	}
	from = s.rec.mark()
	if err := fix(p); err != nil {
		return err
	}
	return s.waitFor(p, from, "Page.loadEventFired")
}

func failedThenHome(s *session) error {
	p, err := s.loadedTab()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	dead := "http://" + ln.Addr().String() + "/"
	_ = ln.Close()
	from := s.rec.mark()
	if err := s.navigate(p, dead); err != nil {
		return err
	}
	if err := s.waitFor(p, from, "Page.frameNavigated"); err != nil { // the error page
		return err
	}
	time.Sleep(200 * time.Millisecond)
	from = s.rec.mark()
	if err := s.navigate(p, s.base+"/"); err != nil {
		return err
	}
	return s.waitFor(p, from, "Page.loadEventFired")
}

func unresolvable(s *session) error {
	p, err := s.newTab()
	if err != nil {
		return err
	}
	from := s.rec.mark()
	if err := s.navigate(p, "http://tabguard.invalid/"); err != nil {
		return err
	}
	return s.waitFor(p, from, "Page.frameNavigated") // the error page
}

func alert(s *session) error {
	p, err := s.loadedTab()
	if err != nil {
		return err
	}
	from := s.rec.mark()
	if err := eval(p, `setTimeout(() => alert("hello"), 0)`); err != nil {
		return err
	}
	if err := s.waitFor(p, from, "Page.javascriptDialogOpening"); err != nil {
		return err
	}
	from = s.rec.mark()
	if err := (proto.PageHandleJavaScriptDialog{Accept: true}).Call(p); err != nil {
		return err
	}
	return s.waitFor(p, from, "Page.javascriptDialogClosed")
}

func beforeunload(s *session) error {
	p, err := s.loadedTab()
	if err != nil {
		return err
	}
	if err := eval(p, `window.onbeforeunload = e => { e.preventDefault(); e.returnValue = "" }`); err != nil {
		return err
	}
	from := s.rec.mark()
	nav := make(chan error, 1)
	go func() { nav <- s.navigate(p, s.base+"/next") }() // answered once the dialog is
	if err := s.waitFor(p, from, "Page.javascriptDialogOpening"); err != nil {
		return err
	}
	from = s.rec.mark()
	if err := (proto.PageHandleJavaScriptDialog{Accept: false}).Call(p); err != nil {
		return err
	}
	if err := s.waitFor(p, from, "Page.frameStoppedLoading"); err != nil {
		return err
	}
	select {
	case <-nav: // Page.navigate answers the cancelled navigation with an error or none
	case <-time.After(5 * time.Second):
		return fmt.Errorf("no answer to Page.navigate 5 s after the dialog was dismissed")
	}
	return nil
}

func sameDocument(s *session) error {
	p, err := s.loadedTab()
	if err != nil {
		return err
	}
	from := s.rec.mark()
	if err := eval(p, `location.hash = "a"; history.pushState({}, "", "/pushed")`); err != nil {
		return err
	}
	if err := s.waitFor(p, from, "Page.navigatedWithinDocument"); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond) // the second one
	return nil
}

// popup opens a popup and records it from its creation: the browser
// session auto-attaches to new targets, paused until the recorder has
// enabled its domains.
func popup(s *session) error {
	opener, err := s.loadedTab()
	if err != nil {
		return err
	}
	err = proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true}.Call(s.b)
	if err != nil {
		return err
	}
	from := s.rec.mark()
	// The popup shares its opener's renderer, whose thread waits with the
	// popup until the recorder resumes it: window.open returns after that.
	opened := make(chan error, 1)
	go func() { opened <- eval(opener, `window.open("/popup")`) }()
	var (
		attached proto.TargetAttachedToTarget
		m        message
	)
	for {
		m, from, err = s.rec.wait(s.ctx, from, "the popup's Target.attachedToTarget", func(m message) bool {
			return m.Method == "Target.attachedToTarget" && m.SessionID == ""
		})
		if err != nil {
			return err
		}
		if err := json.Unmarshal(m.Params, &attached); err != nil {
			return err
		}
		if info := attached.TargetInfo; info.Type == proto.TargetTargetInfoTypePage && info.OpenerID == opener.TargetID {
			break
		}
	}
	p := s.b.PageFromSession(attached.SessionID)
	p.TargetID = attached.TargetInfo.TargetID
	s.tabs = append(s.tabs, recordedTab{TargetID: string(p.TargetID), SessionID: string(p.SessionID)})
	if err := enable(p); err != nil {
		return err
	}
	if err := (proto.RuntimeRunIfWaitingForDebugger{}).Call(p); err != nil {
		return err
	}
	if err := <-opened; err != nil {
		return err
	}
	return s.waitFor(p, from, "Page.loadEventFired")
}

func closed(s *session) error {
	p, err := s.loadedTab()
	if err != nil {
		return err
	}
	from := s.rec.mark()
	if _, err := (proto.TargetCloseTarget{TargetID: p.TargetID}).Call(s.b); err != nil {
		return err
	}
	_, _, err = s.rec.wait(s.ctx, from, "Target.targetDestroyed", func(m message) bool {
		return m.Method == "Target.targetDestroyed" && strings.Contains(string(m.Params), string(p.TargetID))
	})
	return err
}
