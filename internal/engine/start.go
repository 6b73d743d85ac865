package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// startSeq is the navigation news a fresh Tab has seen: any news applied
// since it registered is fresher than what its probes learn, as the
// browser-side answers can trail a commit (the target URL reads "" for a
// moment after one).
const startSeq = 0

// errorPagePrefix starts the URL of Chrome's error page.
const errorPagePrefix = "chrome-error://"

// start learns the tab's state as it is now, within ctx and the eval
// timeout (startcall.go). It sends its calls all at once: the browser-side
// ones, which answer whatever the renderer does, and the renderer-side
// ones, which it waits for only on a committed tab that has not crashed;
// elsewhere they finish in the background, bounded by the same deadline, a
// crash or Close. A renderer that does not answer (a busy script) fails
// nothing: the start then knows less.
//
// Inspector.enable makes Chrome report a crash before Watch: it answers it
// on a crashed target with Inspector.targetCrashed. The target's URL comes
// from the browser side, which answers even when the renderer does not.
func (t *Tab) start(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(t.life, stop)() // Close, or the session's end
	pctx, cancel, s := t.b.cfg.begin(ctx, "watch tab")
	defer cancel()
	if p := t.b.cfg.Dialogs; p == tabstate.DialogAccept || p == tabstate.DialogDismiss {
		t.clearDialog(pctx) // before anything asks the renderer, which an open dialog holds
	}
	rctx, rcancel := context.WithTimeout(t.life, t.timeout) // outlives the start on a tab in its first load
	renderer := t.probeRenderer(rctx, rcancel)
	choosers := t.interceptChoosers()
	var (
		info targetInfoResult
		hist historyResult
	)
	errs := together(
		func() error { return s.call(pctx, t.s, "Inspector.enable", "Inspector.enable", nil, nil) },
		func() error { return t.enableSignIn(pctx, s) },
		func() error { return t.overrideCertificates(pctx, s) },
		func() error {
			return s.call(pctx, t.b.browser, "Target.getTargetInfo", "Target.getTargetInfo", targetParams{TargetID: t.id}, &info)
		},
		func() error {
			err := s.call(pctx, t.s, "Page.getNavigationHistory", "Page.getNavigationHistory", nil, &hist)
			if t.protocolError(err, notAttached) {
				hist.CurrentIndex = -1
				return nil // a tab too new to have history: in its first load
			}
			return err
		},
	)
	for i, what := range []string{"enable the Inspector domain", "hold its sign-ins", "hold its certificate errors", "read the target info", "read the navigation history"} {
		if errs[i] != nil {
			return t.startError(what, errs[i])
		}
	}
	if err := t.awaitContext(pctx, s, info.TargetInfo.BrowserContextID); err != nil {
		return t.startError("set the policies in its browser context", err)
	}
	url, committed := learnURL(info.TargetInfo.URL, hist)
	t.mu.Lock()
	if !committed && t.located != "" && (t.located == url || url == "" && ownDocument(t.located)) {
		// The page answered from a document of url: one is committed,
		// though the history, which can trail a commit, does not say so
		// yet (or the browser side knew no URL: see probeRenderer).
		url, committed = t.located, true
	}
	crashed := t.tab.State().Crashed
	t.tab.Learn(url, committed, startSeq)
	if !committed {
		t.framesKnown = true // its frames come after Watch: events tell them
	}
	t.broadcast()
	t.mu.Unlock()
	if committed && !crashed {
		// Wait for them, so a Navigate right after Watch has its load
		// errors seen, and an error page or a loaded page is known.
		select {
		case <-renderer:
		case <-pctx.Done(): // a busy renderer: the start knows less
		}
		select { // and so that no chooser it opens shows
		case <-choosers:
		case <-pctx.Done():
		}
	}
	return nil
}

// probeRenderer asks the renderer, in the background, what the browser
// side cannot tell: whether the page has loaded, and whether Chrome's
// error page stands in for the committed URL; it enables the Network
// domain, unless the driver did, enables lifecycle events (milestones.go)
// and replaces window.print (print.go). Renderer-bound calls are held
// while the tab is crashed, in its first load or busy, so Network and
// lifecycle events are then enabled, and print replaced, later, once the
// renderer answers. The returned channel closes when the probes are done;
// done is called then.
func (t *Tab) probeRenderer(ctx context.Context, done context.CancelFunc) <-chan struct{} {
	finished := make(chan struct{})
	t.mu.Lock()
	printCall := t.printing()
	t.mu.Unlock()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer close(finished)
		defer done()
		var doc evaluateResult
		errs := together(
			func() error {
				return t.probe(ctx, func(ctx context.Context) error {
					return t.s.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: `[document.readyState, location.href]`, ReturnByValue: true}, &doc)
				})
			},
			func() error {
				if t.network {
					return nil
				}
				return t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, "Network.enable", nil, nil) })
			},
			func() error {
				err := t.probe(ctx, t.preventPrint)
				if err == nil {
					t.printed(printCall)
				}
				return err
			},
			func() error { return t.probe(ctx, t.enableLifecycle) },
			func() error { return t.enableConsole(ctx) },
		)
		var v []string
		ok := errs[0] == nil && doc.ExceptionDetails == nil && json.Unmarshal(doc.Result.Value, &v) == nil && len(v) == 2
		t.mu.Lock()
		defer t.mu.Unlock()
		if ok {
			t.located = v[1]
			s := t.tab.State()
			switch {
			case s.Committed || s.ErrorPage:
			case s.URL != "" && s.URL == v[1]:
				t.tab.Learn(v[1], true, startSeq) // as in start, when the history trails
			case s.URL == "" && ownDocument(v[1]):
				// Measured on Chromium 156: a tab watched as its first
				// document commits can read "Not attached to an active page"
				// for its history and "" for its target's URL, while its
				// commit was told before the watcher listened. The page
				// answering from a document of its own is the commit.
				t.tab.Learn(v[1], true, startSeq)
			}
		}
		if ok && strings.HasPrefix(v[1], errorPagePrefix) {
			t.tab.LearnErrorPage(t.tab.State().URL, startSeq)
		}
		if ok && v[0] == "complete" {
			t.tab.LearnLoaded(startSeq)
		}
		if t.closed {
			if errs[2] != nil {
				t.printedLocked(printCall)
			}
			return
		}
		t.broadcast()
		if errs[1] != nil {
			t.enableNetworkLater()
		}
		if errs[2] != nil {
			t.preventPrintLater(printCall)
		}
		if errs[3] != nil {
			t.enableLifecycleLater()
		}
		if errs[4] != nil {
			t.enableConsoleLater()
		}
	}()
	return finished
}

// enableNetworkLater enables the Network domain once the renderer
// answers; Chrome holds the call while the tab is crashed or in its first
// load. t.mu must be held and t not closed.
func (t *Tab) enableNetworkLater() {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		_ = t.s.Call(t.life, "Network.enable", nil, nil)
	}()
}

// learnURL tells the tab's URL and whether a document of it is committed
// from the target's URL and the navigation history. While a first
// navigation is pending, the target already shows the new URL but the
// history has only about:blank: that mismatch means nothing is committed
// yet. A renderer hung by chrome://hang also shows chrome://hang/ as its
// target URL while the history keeps the page it hangs on (measured on
// Chromium 156): Chrome's debug URLs never load, so that page is kept.
func learnURL(target string, hist historyResult) (url string, committed bool) {
	if hist.CurrentIndex < 0 || hist.CurrentIndex >= len(hist.Entries) {
		return target, false
	}
	current := hist.Entries[hist.CurrentIndex].URL
	if current != target && strings.HasPrefix(target, "chrome://") && current != "about:blank" {
		return current, true
	}
	return target, current == target
}

// startError is the error of Watch when a probe failed.
func (t *Tab) startError(what string, err error) error {
	if te, ok := startTimeout(err); ok {
		return t.b.cfg.Advice.Words(te)
	}
	if errors.Is(err, context.Canceled) && t.parent.Err() != nil {
		// The session's life ended: it detached.
		return refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrTabClosed})
	}
	if be, ok := t.classify(err).(*tabstate.BlockedError); ok {
		return be
	}
	return fmt.Errorf("watch tab: %s: %w", what, err)
}

// ownDocument reports whether a page at location url answers from a
// document of its own: neither an iframe's or a new tab's initial empty
// one, nor Chrome's error page.
func ownDocument(url string) bool {
	return url != initialDocument && !strings.HasPrefix(url, errorPagePrefix)
}
