package engine

import (
	"context"

	"github.com/tabguard/tabguard/tabtrace"
)

// release hands back to Chrome what start had it hold for the engine on
// the tab's session, which outlives the Tab: with no Tab to answer them,
// held document requests and certificate errors would wait for good, and
// file choosers would open to nobody. Disabling Fetch lets requests held
// at that moment go on. The script that replaces print is removed: the
// documents the tab loads next have their own print again. It sends
// nothing when the tab or the browser is gone, nothing to the page of a
// crashed tab, and waits for no answer (handBack).
func (t *Tab) release() {
	t.mu.Lock()
	s, script := t.tab.State(), t.printScript
	t.mu.Unlock()
	if t.parent.Err() != nil || s.Closed || s.BrowserGone || t.b.lost() {
		return
	}
	var calls []handBackCall
	if t.b.cfg.Credentials != nil {
		calls = append(calls, handBackCall{method: "Fetch.disable"})
	}
	if len(t.b.cfg.InsecureHosts) > 0 {
		calls = append(calls, handBackCall{method: "Security.setOverrideCertificateErrors", params: overrideParams{Override: false}})
	}
	if s.Crashed {
		// Chrome holds Page commands while the renderer is gone, and
		// would hold a BrowserWatcher's Close with them.
		t.b.handBack(t.parent, t.s, t.id, calls)
		return
	}
	calls = append(calls, handBackCall{method: "Page.setInterceptFileChooserDialog", params: interceptParams{Enabled: false}})
	if script != "" {
		calls = append(calls, handBackCall{method: "Page.removeScriptToEvaluateOnNewDocument", params: scriptIdentifier{Identifier: script}})
	}
	t.b.handBack(t.parent, t.s, t.id, calls)
}

// handBackCall is one command a hand-back sends.
type handBackCall struct {
	method string
	params any
}

// handBack sends calls on s, in order, from a goroutine of the Browser's,
// and returns without waiting for Chrome's answers: a Close must not wait
// on a tab that answers slowly or not at all. life is the session's: the
// calls end with it. Each call is bounded by the eval timeout; one that
// fails is logged and traced (Trace.HandBackFailed), and the rest are
// still sent. Browser.Close waits for the hand-backs under way; one asked
// for after it did is not sent.
func (b *Browser) handBack(life context.Context, s Session, targetID string, calls []handBackCall) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(calls) == 0 || b.handsDone {
		return
	}
	b.hands.Add(1)
	go func() {
		defer b.hands.Done()
		for _, c := range calls {
			ctx, cancel := context.WithTimeout(life, b.cfg.timeout())
			err := s.Call(ctx, c.method, c.params, nil)
			cancel()
			if err == nil || life.Err() != nil || b.classify(err).Kind == Detached {
				continue // the session ended: what it held went with it
			}
			if log := b.cfg.Logger; log != nil {
				log.Warn("tabguard: hand-back failed", "target", targetID, "method", c.method, "err", err)
			}
			if tr := b.cfg.Trace; tr != nil && tr.HandBackFailed != nil {
				tr.HandBackFailed(tabtrace.HandBack{TargetID: targetID, Method: c.method, Err: err})
			}
		}
	}()
}

// undoPolicies undoes the policies a failed start sent, whether or not
// Chrome confirmed them: a call that did not answer in time may still take
// effect. The commands go out after the start's, on the same connection.
func (b *Browser) undoPolicies() {
	b.handBack(b.life, b.d, "", []handBackCall{
		{method: "Browser.setDownloadBehavior", params: downloadBehaviorParams{Behavior: "default"}},
		{method: "Browser.resetPermissions"},
	})
}
