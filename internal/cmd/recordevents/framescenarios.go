package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// frameScenarios are the scenarios of a page's iframes. A cross-site
// iframe is served from localhost, the page from 127.0.0.1: with site
// isolation on it runs in a renderer process of its own, which the page
// session knows only as a frame detached by a "swap", and the browser
// session as a target of type "iframe".
func frameScenarios() []scenario {
	return []scenario{
		{name: "iframe-load", run: iframeLoad,
			about: "a page loads a same-site iframe, a cross-site one and a lazy one below the fold; site isolation off"},
		{name: "iframe-swap", run: iframeSwap, isolated: true,
			about: "a same-site iframe is sent to another site and moves to a renderer process of its own; site isolation on"},
		{name: "iframe-failed", run: iframeFailed,
			about: "an iframe of a closed 127.0.0.1 port fails to load and Chrome's error page stands in"},
		{name: "iframe-failed-cross", run: iframeFailedCross, isolated: true,
			about: "an iframe of another site fails to load and Chrome's error page commits in a process of its own; site isolation on"},
		{name: "iframe-failed-cross-retry", run: iframeFailedCrossRetry, isolated: true,
			about: "an iframe of another site fails to load, then its page sends it to a page of that site that answers; site isolation on"},
		{name: "iframe-crash", run: iframeCrash, isolated: true,
			about: "the renderer of a cross-site iframe crashes (Page.crash on the iframe's own target); the page lives on; site isolation on"},
		{name: "iframe-crash-navigate", run: iframeCrashNavigate, isolated: true,
			about: "the renderer of a cross-site iframe crashes, then the page sends the iframe to another page of that site; site isolation on"},
		{name: "iframe-swap-back", run: iframeSwapBack, isolated: true,
			about: "a cross-site iframe in a process of its own is sent to a page of its parent's site and comes back in process; site isolation on"},
		{name: "iframe-removed", run: iframeRemoved,
			about: "a page removes an iframe that holds an iframe of its own; its other iframe stays"},
	}
}

// framePage returns the path under base of a page with an iframe for
// each of srcs and, below the fold, a lazy iframe of lazy unless it is "".
func framePage(base string, srcs []string, lazy string) string {
	q := url.Values{"src": srcs}
	if lazy != "" {
		q.Set("lazy", lazy)
	}
	return base + "/frames?" + q.Encode()
}

// writeFrames writes the iframes of q, as framePage asks for them.
func writeFrames(w io.Writer, q url.Values) {
	for _, src := range q["src"] {
		fmt.Fprintf(w, `<iframe src="%s"></iframe>`, html.EscapeString(src))
	}
	for _, src := range q["lazy"] {
		// Far below the fold: Chrome attaches the frame and never loads it.
		fmt.Fprintf(w, `<div style="height:20000px"></div><iframe loading="lazy" src="%s"></iframe>`, html.EscapeString(src))
	}
}

// framedTab opens a tab and loads page in it, iframes and all; from is
// where the load's events start in the log.
func (s *session) framedTab(page string) (p *rod.Page, from int, err error) {
	p, err = s.newTab()
	if err != nil {
		return nil, 0, err
	}
	from = s.rec.mark()
	if err := s.navigate(p, page); err != nil {
		return nil, 0, err
	}
	return p, from, s.waitFor(p, from, "Page.loadEventFired")
}

// waitIframeTarget waits for the browser session's news of an iframe
// target logged since from, whose URL is url unless url is "".
func (s *session) waitIframeTarget(from int, method, url string) (targetInfo, error) {
	m, _, err := s.rec.wait(s.ctx, from, "an iframe's "+method, func(m message) bool {
		info, ok := iframeTarget(m)
		return ok && m.Method == method && m.SessionID == "" && (url == "" || info.URL == url)
	})
	if err != nil {
		return targetInfo{}, err
	}
	info, _ := iframeTarget(m)
	return info, nil
}

func iframeLoad(s *session) error {
	_, _, err := s.framedTab(framePage(s.base, []string{"/same", s.cross + "/cross"}, "/lazy"))
	return err
}

func iframeSwap(s *session) error {
	p, _, err := s.framedTab(framePage(s.base, []string{"/same"}, ""))
	if err != nil {
		return err
	}
	cross := s.cross + "/cross"
	from := s.rec.mark()
	if err := eval(p, fmt.Sprintf(`document.querySelector("iframe").src = %q`, cross)); err != nil {
		return err
	}
	if err := s.waitFor(p, from, "Page.frameDetached"); err != nil { // the swap
		return err
	}
	_, err = s.waitIframeTarget(from, "Target.targetInfoChanged", cross)
	return err
}

func iframeFailed(s *session) error {
	dead, err := deadURL("127.0.0.1")
	if err != nil {
		return err
	}
	p, from, err := s.framedTab(framePage(s.base, []string{dead}, ""))
	if err != nil {
		return err
	}
	_, _, err = s.rec.wait(s.ctx, from, "the iframe's error page", func(m message) bool {
		ev, ok := decodeNavigated(m)
		return ok && m.SessionID == string(p.SessionID) && ev.UnreachableURL != ""
	})
	return err
}

// iframeFailedCross loads an iframe of another site whose server is
// down: the page's session tells of the failed load, and Chrome commits
// its error page in a process of its own, whose target has the URL that
// failed.
func iframeFailedCross(s *session) error {
	_, err := s.failedCrossIframe()
	return err
}

// iframeFailedCrossRetry sends a cross-site iframe whose load failed to
// a page of that site that answers: the page's session tells nothing of
// it, the iframe's target tells its new URL.
func iframeFailedCrossRetry(s *session) error {
	p, err := s.failedCrossIframe()
	if err != nil {
		return err
	}
	cross := s.cross + "/cross"
	from := s.rec.mark()
	if err := eval(p, fmt.Sprintf(`document.querySelector("iframe").src = %q`, cross)); err != nil {
		return err
	}
	_, err = s.waitIframeTarget(from, "Target.targetInfoChanged", cross)
	return err
}

// failedCrossIframe loads a page with an iframe of another site whose
// server is down.
func (s *session) failedCrossIframe() (*rod.Page, error) {
	dead, err := deadURL("localhost")
	if err != nil {
		return nil, err
	}
	p, from, err := s.framedTab(framePage(s.base, []string{dead}, ""))
	if err != nil {
		return nil, err
	}
	_, err = s.waitIframeTarget(from, "Target.targetInfoChanged", dead)
	return p, err
}

// deadURL returns an http URL of host at a port of 127.0.0.1 nothing
// listens on, so loading it fails with net::ERR_CONNECTION_REFUSED.
func deadURL(host string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return "http://" + host + ":" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + "/", nil
}

// iframeCrash crashes the renderer of a cross-site iframe.
func iframeCrash(s *session) error {
	_, _, err := s.crashedIframe()
	return err
}

// iframeCrashNavigate crashes the renderer of a cross-site iframe, then
// its page sends the iframe to another page of that site: the page's
// session tells nothing of it, the iframe's target tells its new URL.
func iframeCrashNavigate(s *session) error {
	p, _, err := s.crashedIframe()
	if err != nil {
		return err
	}
	again := s.cross + "/again"
	from := s.rec.mark()
	if err := eval(p, fmt.Sprintf(`document.querySelector("iframe").src = %q`, again)); err != nil {
		return err
	}
	_, err = s.waitIframeTarget(from, "Target.targetInfoChanged", again)
	return err
}

// crashedIframe loads a page with a cross-site iframe and crashes the
// iframe's renderer through the iframe's own target, as a crash of that
// process alone would: Chrome never answers the Page.crash, and tells of
// the crash on the browser session.
func (s *session) crashedIframe() (*rod.Page, targetInfo, error) {
	cross := s.cross + "/cross"
	p, from, err := s.framedTab(framePage(s.base, []string{cross}, ""))
	if err != nil {
		return nil, targetInfo{}, err
	}
	info, err := s.waitIframeTarget(from, "Target.targetInfoChanged", cross)
	if err != nil {
		return nil, targetInfo{}, err
	}
	att, err := proto.TargetAttachToTarget{TargetID: proto.TargetTargetID(info.TargetID), Flatten: true}.Call(s.b)
	if err != nil {
		return nil, targetInfo{}, err
	}
	from = s.rec.mark()
	ctx, cancel := context.WithTimeout(s.ctx, 300*time.Millisecond)
	_, _ = s.b.Call(ctx, string(att.SessionID), "Page.crash", nil) // Chrome never answers it
	cancel()
	_, _, err = s.rec.wait(s.ctx, from, "Target.targetCrashed of the iframe", func(m message) bool {
		var p struct{ TargetID string }
		return m.Method == "Target.targetCrashed" && m.SessionID == "" &&
			unmarshal(m.Params, &p) && p.TargetID == info.TargetID
	})
	return p, info, err
}

// iframeSwapBack sends a cross-site iframe, in a process of its own, to
// a page of its parent's site: Chrome destroys the iframe's target, and
// the page's session attaches the frame again and commits it.
func iframeSwapBack(s *session) error {
	cross := s.cross + "/cross"
	p, from, err := s.framedTab(framePage(s.base, []string{cross}, ""))
	if err != nil {
		return err
	}
	if _, err := s.waitIframeTarget(from, "Target.targetInfoChanged", cross); err != nil {
		return err
	}
	back := s.base + "/back"
	from = s.rec.mark()
	if err := eval(p, fmt.Sprintf(`document.querySelector("iframe").src = %q`, back)); err != nil {
		return err
	}
	_, _, err = s.rec.wait(s.ctx, from, "the iframe's commit on the page's session", func(m message) bool {
		ev, ok := decodeNavigated(m)
		return ok && m.SessionID == string(p.SessionID) && ev.URL == back
	})
	return err
}

func iframeRemoved(s *session) error {
	nested := framePage("", []string{"/inner"}, "")
	p, _, err := s.framedTab(framePage(s.base, []string{nested, "/kept"}, ""))
	if err != nil {
		return err
	}
	from := s.rec.mark()
	if err := eval(p, `document.querySelector("iframe").remove()`); err != nil {
		return err
	}
	return s.waitFor(p, from, "Page.frameDetached")
}

// decodeNavigated returns the Page.frameNavigated m is, decoded.
func decodeNavigated(m message) (tabstate.FrameNavigated, bool) {
	if m.Method != "Page.frameNavigated" {
		return tabstate.FrameNavigated{}, false
	}
	ev, _ := tabstate.Decode(m.Method, m.Params)
	fn, ok := ev.(tabstate.FrameNavigated)
	return fn, ok
}

func unmarshal(data []byte, v any) bool { return json.Unmarshal(data, v) == nil }
