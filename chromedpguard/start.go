package chromedpguard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// probeTimeout bounds each CDP call Watch makes to learn the tab's state.
const probeTimeout = time.Second

// watch makes a Watcher of the tab of ctx, which is open, fed by bw; owned
// says bw is its own.
func (bw *BrowserWatcher) watch(ctx context.Context, owned bool) (*Watcher, error) {
	if chromedp.FromContext(ctx).Browser != bw.browser {
		return nil, fmt.Errorf("%w: a tab of another browser: watch it with that browser's BrowserWatcher", ErrInvalidArgument)
	}
	t, err := chromedp.Run(ctx, func(_ context.Context, t *chromedp.Target) (*chromedp.Target, error) { return t, nil })
	if err != nil {
		return nil, fmt.Errorf("watch tab: %w", err)
	}
	detached, err := chromedp.Detached(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch tab: %w", err)
	}
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	o := bw.opts
	w := &Watcher{
		bw: bw, owned: owned, target: t, id: t.TargetID, detached: detached,
		timeout: o.EvalTimeout, terminate: o.TerminateOnTimeout, dialogs: o.Dialogs, notice: o.DOMNotice,
		urls: o.URLs, log: o.Logger, life: life, cancel: cancel,
		changed: make(chan struct{}), inflight: map[*inflight]struct{}{},
	}
	w.tab.MainFrame = string(t.TargetID)
	if w.timeout <= 0 {
		w.timeout = DefaultEvalTimeout
	}
	// Register and listen before the first probe, so no event in between is lost.
	if err := bw.add(w); err != nil {
		cancel()
		return nil, err
	}
	if err := chromedp.Listen(life, w.onEvent); err != nil {
		w.owned = false
		_ = w.Close()
		return nil, fmt.Errorf("watch tab: %w", err)
	}
	if err := w.start(); err != nil {
		w.owned = false // the caller closes its own BrowserWatcher
		_ = w.Close()
		return nil, err
	}
	return w, nil
}

// onEvent is the watcher's Listen func.
func (w *Watcher) onEvent(ev any) {
	if e, ok := pageEvent(ev); ok {
		w.apply(e)
	}
}

// start learns the tab's state as it is now: Inspector.enable (which
// Chrome answers on a crashed target with Inspector.targetCrashed, so a
// crash before Watch is seen), the target's URL from the browser side and
// the navigation history, all at once; and in the background, whether the
// page has loaded and whether Chrome's error page stands in for it. It
// waits for the renderer only on a committed tab that has not crashed.
func (w *Watcher) start() error {
	pctx, cancel := context.WithTimeout(w.life, probeTimeout)
	defer cancel()
	if w.dialogs != DialogRefuse {
		w.clearDialog(pctx) // before anything asks the renderer, which a dialog holds
	}
	rctx, rcancel := context.WithTimeout(w.life, probeTimeout)
	renderer := w.probeRenderer(rctx, rcancel)
	var (
		info target.GetTargetInfoResult
		hist page.GetNavigationHistoryResult
	)
	errs := together(
		func() error { _, err := cdp.Call(pctx, w.target, inspector.Enable, cdp.Empty{}); return err },
		func() (err error) {
			info, err = cdp.Call(pctx, w.bw.browser, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: w.id})
			return err
		},
		func() (err error) {
			hist, err = cdp.Call(pctx, w.target, page.GetNavigationHistory, cdp.Empty{})
			if notAttached(err) {
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
	url, committed := learnURL(info.TargetInfo, hist)
	w.mu.Lock()
	crashed := w.tab.State().Crashed
	w.tab.Learn(url, committed, startSeq)
	w.broadcast()
	w.mu.Unlock()
	if committed && !crashed {
		<-renderer // so a Navigate right after Watch knows the page it leaves
	}
	return nil
}

// startSeq is the navigation news a fresh watcher has seen: news applied
// since it registered is fresher than what its probes learn.
const startSeq = 0

// errorPagePrefix starts the URL of Chrome's error page.
const errorPagePrefix = "chrome-error://"

// probeRenderer asks the renderer, in the background, whether the page
// has loaded and whether Chrome's error page stands in for the committed
// URL. The returned channel closes when it is done; done is called then.
func (w *Watcher) probeRenderer(ctx context.Context, done context.CancelFunc) <-chan struct{} {
	finished := make(chan struct{})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(finished)
		defer done()
		var doc runtime.EvaluateResult
		err := w.probe(ctx, func(ctx context.Context) (err error) {
			doc, err = cdp.Call(ctx, w.target, runtime.Evaluate, runtime.EvaluateParams{
				Expression: `[document.readyState, location.href]`, ReturnByValue: ptr(true)})
			return err
		})
		var v []string
		ok := err == nil && doc.ExceptionDetails == nil && doc.Result != nil &&
			json.Unmarshal(doc.Result.Value, &v) == nil && len(v) == 2
		w.mu.Lock()
		defer w.mu.Unlock()
		if ok && strings.HasPrefix(v[1], errorPagePrefix) {
			w.tab.LearnErrorPage(w.tab.State().URL, startSeq)
		}
		if ok && v[0] == "complete" {
			w.tab.LearnLoaded(startSeq)
		}
		if !w.closed {
			w.broadcast()
		}
	}()
	return finished
}

// learnURL tells the tab's URL and whether a document of it is committed
// from the target's URL and the navigation history: while a first
// navigation is pending, the target already shows the new URL but the
// history has only about:blank. A renderer hung by chrome://hang shows
// that as its target URL while the history keeps the page it hangs on.
func learnURL(info *target.Info, hist page.GetNavigationHistoryResult) (url string, committed bool) {
	if info != nil {
		url = info.URL
	}
	i := hist.CurrentIndex
	if i < 0 || i >= int64(len(hist.Entries)) || hist.Entries[i] == nil {
		return url, false
	}
	current := hist.Entries[i].URL
	if current != url && strings.HasPrefix(url, "chrome://") && current != "about:blank" {
		return current, true
	}
	return url, current == url
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

// probe runs fn on the tab as a call in flight, so a crash or Close cuts it short.
func (w *Watcher) probe(ctx context.Context, fn func(context.Context) error) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	call := &inflight{cancel: stop}
	if err := w.enter(call, nil); err != nil {
		return err
	}
	defer w.leave(call)
	return fn(ctx)
}

func (w *Watcher) startError(what string, err error) error {
	if be, ok := w.classify(err).(*BlockedError); ok {
		return be
	}
	return fmt.Errorf("watch tab: %s: %w", what, err)
}

func ptr[T any](v T) *T { return &v }
