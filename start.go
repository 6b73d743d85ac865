package tabguard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// probeTimeout bounds each CDP call Watch makes to learn the tab's state.
const probeTimeout = time.Second

// start learns the tab's state as it is now. It sends its calls all at
// once: the browser-side ones, which answer whatever the renderer does, and
// the renderer-side ones, which it waits for only on a committed tab that
// has not crashed; elsewhere they finish in the background, bounded by
// probeTimeout, a crash or Close.
func (w *Watcher) start(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	p := w.page.Context(pctx)
	if w.dialogs != DialogRefuse {
		// Before anything asks the renderer, which an open dialog holds.
		w.clearDialog(p)
	}
	rctx, rcancel := context.WithTimeout(ctx, probeTimeout)
	renderer := w.probeRenderer(w.page.Context(rctx), rcancel)
	var (
		info *proto.TargetGetTargetInfoResult
		hist *proto.PageGetNavigationHistoryResult
	)
	errs := together(
		func() error { return proto.InspectorEnable{}.Call(p) },
		func() (err error) {
			info, err = proto.TargetGetTargetInfo{TargetID: w.page.TargetID}.Call(w.page.Browser().Context(pctx))
			return err
		},
		func() (err error) {
			hist, err = proto.PageGetNavigationHistory{}.Call(p)
			if errors.Is(err, cdp.ErrNotAttachedToActivePage) {
				return nil // a tab too new to have history: in its first load
			}
			return err
		},
	)
	for i, what := range []string{"enable the Inspector domain", "read the target info", "read the navigation history"} {
		if errs[i] != nil {
			return w.startError(what, errs[i])
		}
	}
	url, committed := learnURL(info.TargetInfo.URL, hist)
	w.mu.Lock()
	crashed := w.tab.State().Crashed
	w.tab.Learn(url, committed, startSeq)
	w.broadcast()
	w.mu.Unlock()
	if committed && !crashed {
		// Wait for them, so a Navigate right after Watch has its load
		// errors seen, and an error page or a loaded page is known.
		<-renderer
	}
	return nil
}

// startSeq is the navigation news a fresh watcher has seen: any news
// applied since it registered is fresher than what its probes learn, as the
// browser-side answers can trail a commit (the target URL reads "" for a
// moment after one).
const startSeq = 0

// probeRenderer asks the renderer, in the background, what the browser
// side cannot tell: whether the page has loaded, and whether Chrome's error
// page stands in for the committed URL (the history names the URL it
// failed to load); and it enables the Network domain. Renderer-bound calls
// are held while the tab is crashed, in its first load or busy, so Network
// is then enabled later, once the renderer answers. The returned channel
// closes when the probes are done; done is called then.
func (w *Watcher) probeRenderer(p *rod.Page, done context.CancelFunc) <-chan struct{} {
	finished := make(chan struct{})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(finished)
		defer done()
		var doc *proto.RuntimeEvaluateResult
		errs := together(
			func() error { return w.probe(p, func(p *rod.Page) error { return proto.NetworkEnable{}.Call(p) }) },
			func() error {
				return w.probe(p, func(p *rod.Page) (err error) {
					doc, err = proto.RuntimeEvaluate{Expression: `[document.readyState, location.href]`, ReturnByValue: true}.Call(p)
					return err
				})
			},
		)
		w.mu.Lock()
		if errs[1] == nil && doc.ExceptionDetails == nil {
			v := doc.Result.Value
			if strings.HasPrefix(v.Get("1").Str(), errorPagePrefix) {
				w.tab.LearnErrorPage(w.tab.State().URL, startSeq)
			}
			if v.Get("0").Str() == "complete" {
				w.tab.LearnLoaded(startSeq)
			}
		}
		if !w.closed {
			w.broadcast()
			if errs[0] != nil {
				w.enableNetworkLater()
			}
		}
		w.mu.Unlock()
	}()
	return finished
}

// errorPagePrefix starts the URL of Chrome's error page.
const errorPagePrefix = "chrome-error://"

// learnURL tells the tab's URL and whether a document of it is committed
// from the target's URL and the navigation history. While a first
// navigation is pending, the target already shows the new URL but the
// history has only about:blank: that mismatch means nothing is committed
// yet. A renderer hung by chrome://hang also shows chrome://hang/ as its
// target URL while the history keeps the page it hangs on (measured on
// Chromium 156): Chrome's debug URLs never load, so that page is kept.
func learnURL(target string, hist *proto.PageGetNavigationHistoryResult) (url string, committed bool) {
	if hist == nil || hist.CurrentIndex < 0 || hist.CurrentIndex >= len(hist.Entries) {
		return target, false
	}
	current := hist.Entries[hist.CurrentIndex].URL
	if current != target && strings.HasPrefix(target, "chrome://") && current != "about:blank" {
		return current, true
	}
	return target, current == target
}

// together runs the calls at once and returns their errors, in order.
func together(calls ...func() error) []error {
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i+1] = call()
		}()
	}
	errs[0] = calls[0]()
	wg.Wait()
	return errs
}

// enableNetworkLater enables the Network domain once the renderer answers;
// Chrome holds the call while the tab is crashed or in its first load.
// w.mu must be held and w not closed.
func (w *Watcher) enableNetworkLater() {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		_ = proto.NetworkEnable{}.Call(w.page)
	}()
}

// probe runs fn on the tab as a call in flight, so a crash or Close cuts it short.
func (w *Watcher) probe(p *rod.Page, fn func(*rod.Page) error) error {
	ctx, stop := context.WithCancelCause(p.GetContext())
	defer stop(nil)
	call := &inflight{cancel: stop}
	if err := w.enter(call, nil); err != nil {
		return err
	}
	defer w.leave(call)
	return fn(p.Context(ctx))
}

func (w *Watcher) startError(what string, err error) error {
	if errors.Is(err, context.Canceled) && w.page.GetContext().Err() != nil {
		return &BlockedError{Reason: ErrTabClosed} // rod ends the session's context on detach
	}
	var be *BlockedError
	if errors.As(w.classify(err), &be) {
		return be
	}
	return fmt.Errorf("watch tab: %s: %w", what, err)
}
