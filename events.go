package tabguard

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// follow applies the tab's CDP events to the watcher's state until ctx ends.
// Page-session events carry loads and Inspector.targetCrashed; the browser
// session carries Target.targetCrashed, the only one with a crash status.
// Handlers only take w.mu, so rod's event pipeline is never held up.
func (w *Watcher) follow(ctx context.Context, pageEvents, browserEvents <-chan *rod.Message) {
	for {
		select {
		case <-ctx.Done():
			w.lost(&BlockedError{Reason: ErrTabClosed})
			return
		case m, ok := <-pageEvents:
			if !ok {
				pageEvents = nil
				continue
			}
			w.onPageEvent(m)
		case m, ok := <-browserEvents:
			if !ok {
				// rod closes browser subscriptions when the DevTools socket dies.
				browserEvents = nil
				if ctx.Err() == nil {
					w.lost(&BlockedError{Reason: ErrBrowserGone})
				}
				continue
			}
			w.onBrowserEvent(m)
		}
	}
}

func (w *Watcher) onBrowserEvent(m *rod.Message) {
	switch m.Method {
	case (proto.TargetTargetCrashed{}).ProtoEvent():
		var e proto.TargetTargetCrashed
		if m.Load(&e) && e.TargetID == w.page.TargetID {
			w.crashed(e.Status)
		}
	case (proto.TargetDetachedFromTarget{}).ProtoEvent():
		// rod cancels the page's context on detach too, but not that of a
		// page clone made with page.Context, so the watcher looks itself.
		var e proto.TargetDetachedFromTarget
		if m.Load(&e) && e.SessionID == w.page.SessionID {
			w.lost(&BlockedError{Reason: ErrTabClosed})
		}
	case (proto.TargetTargetDestroyed{}).ProtoEvent():
		var e proto.TargetTargetDestroyed
		if m.Load(&e) && e.TargetID == w.page.TargetID {
			w.lost(&BlockedError{Reason: ErrTabClosed})
		}
	}
}

func (w *Watcher) onPageEvent(m *rod.Message) {
	switch m.Method {
	case (proto.InspectorTargetCrashed{}).ProtoEvent():
		w.crashed("")
	case (proto.PageJavascriptDialogOpening{}).ProtoEvent():
		var e proto.PageJavascriptDialogOpening
		if m.Load(&e) {
			w.stalled("tabguard: JavaScript dialog opened", func(s *TabState) {
				s.DialogOpen, s.DialogType, s.DialogMessage = true, string(e.Type), e.Message
			})
		}
	case (proto.PageJavascriptDialogClosed{}).ProtoEvent():
		w.unstalled(func(s *TabState) { s.DialogOpen, s.DialogType, s.DialogMessage = false, "", "" })
	case (proto.DebuggerPaused{}).ProtoEvent():
		var e proto.DebuggerPaused
		if m.Load(&e) {
			w.stalled("tabguard: tab paused in the debugger", func(s *TabState) {
				s.Paused, s.PauseReason = true, string(e.Reason)
			})
		}
	case (proto.DebuggerResumed{}).ProtoEvent():
		w.unstalled(func(s *TabState) { s.Paused, s.PauseReason = false, "" })
	case (proto.PageFrameNavigated{}).ProtoEvent():
		var e proto.PageFrameNavigated
		if m.Load(&e) && e.Frame != nil && e.Frame.ParentID == "" {
			w.committed(e.Frame)
		}
	case (proto.PageNavigatedWithinDocument{}).ProtoEvent():
		var e proto.PageNavigatedWithinDocument
		if m.Load(&e) {
			w.update(func(s *TabState) {
				if e.FrameID == w.mainFrame {
					s.URL = e.URL
				}
			})
		}
	case (proto.NetworkRequestWillBeSent{}).ProtoEvent():
		var e proto.NetworkRequestWillBeSent
		if m.Load(&e) && e.Type == proto.NetworkResourceTypeDocument && e.Request != nil {
			w.update(func(s *TabState) {
				if e.FrameID == w.mainFrame && string(e.RequestID) == string(e.LoaderID) {
					w.docRequest, w.beforeLoad = e.RequestID, *s
					if s.URL == "about:blank" {
						// A new tab's blank document holds renderer commands
						// until the first page commits: nothing is there yet.
						s.Committed = false
					}
					s.URL = e.Request.URL
				}
			})
		}
	case (proto.NetworkLoadingFailed{}).ProtoEvent():
		var e proto.NetworkLoadingFailed
		// A cancelled load (stopLoading, a newer navigation) leaves the tab
		// with what it had, so only a real failure is recorded.
		if m.Load(&e) {
			w.update(func(s *TabState) {
				switch {
				case e.RequestID != w.docRequest:
				case e.Canceled:
					s.URL, s.Committed = w.beforeLoad.URL, w.beforeLoad.Committed
				default:
					s.LoadError = e.ErrorText
				}
			})
		}
	}
}

// update applies navigation news to the state under w.mu.
func (w *Watcher) update(f func(*TabState)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.navSeq++
	f(&w.state)
}

// committed records a main-frame commit: a new document means the renderer
// lives again, so any commit clears a crash; only a real page clears a load
// error, while Chrome's error page records one.
func (w *Watcher) committed(f *proto.PageFrame) {
	w.update(func(s *TabState) {
		w.mainFrame = f.ID
		s.Crashed, s.CrashReason = false, ""
		clearStall(s) // a new document has no dialog and no pause
		if f.UnreachableURL != "" {
			s.URL, s.Committed, s.ErrorPage = f.UnreachableURL, false, true
			return
		}
		s.URL, s.Committed, s.ErrorPage, s.LoadError = f.URL+f.URLFragment, true, false, ""
	})
}

// crashed records a renderer crash and fails the evals in flight at once.
// The two crash events arrive within milliseconds of each other; the status
// from Target.targetCrashed is kept whichever comes first.
func (w *Watcher) crashed(status string) {
	w.mu.Lock()
	first := !w.state.Crashed
	w.state.Crashed = true
	clearStall(&w.state) // the renderer took its dialog or pause with it
	if status != "" {
		w.state.CrashReason = status
	}
	err := EvalBlockedReason(w.state)
	w.failInflight(err)
	url := w.state.URL
	w.mu.Unlock()
	if first && w.log != nil {
		w.log.Warn("tabguard: tab renderer crashed", "url", url, "err", err)
	}
}

// lost records that the tab or the browser went away, unless Close did it.
func (w *Watcher) lost(err *BlockedError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if err.Reason == ErrBrowserGone {
		w.state.BrowserGone = true
	} else {
		w.state.Closed = true
	}
	err.URL = w.state.URL
	w.failInflight(err)
}

// stalled records that the page stopped running script (a dialog opened, the
// debugger paused) and cuts the evals in flight short: they would wait for
// the page until their deadline.
func (w *Watcher) stalled(msg string, f func(*TabState)) {
	w.mu.Lock()
	f(&w.state)
	err := EvalBlockedReason(w.state)
	if err != nil {
		w.failInflight(err)
	}
	w.mu.Unlock()
	if w.log != nil {
		w.log.Warn(msg, "target", w.page.TargetID, "err", err)
	}
}

// unstalled records that the page runs script again.
func (w *Watcher) unstalled(f func(*TabState)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.state)
}

// clearStall forgets a dialog and a pause.
func clearStall(s *TabState) {
	s.DialogOpen, s.DialogType, s.DialogMessage = false, "", ""
	s.Paused, s.PauseReason = false, ""
}
