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

// handBack sends calls on s, all at once, from goroutines of the
// Browser's, and returns without waiting for Chrome's answers: a Close
// must not wait on a tab whose renderer is busy, hung or gone, which holds
// Page commands. Each call ends with life (the session's), the eval
// timeout or Browser.Close; one that fails otherwise is logged and traced
// (Trace.HandBackFailed). Browser.Close waits until each call is in the
// driver's hands, then ends those Chrome has not answered: the commands
// are out, and Chrome acts on them whether or not anyone awaits the
// answers. A hand-back asked for after Browser.Close began is not sent.
func (b *Browser) handBack(life context.Context, s Session, targetID string, calls []handBackCall) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(calls) == 0 || b.handsDone {
		return
	}
	for _, c := range calls {
		b.hands.Add(1)
		b.handing.Add(1)
		go func() {
			defer b.hands.Done()
			ctx, cancel := context.WithTimeout(life, b.cfg.timeout())
			defer cancel()
			defer context.AfterFunc(b.handsOver, cancel)()
			b.handing.Done()
			err := s.Call(ctx, c.method, c.params, nil)
			if err == nil || life.Err() != nil || b.handsOver.Err() != nil || b.classify(err).Kind == Detached {
				return // answered, or the session or the watcher ended: nothing to tell
			}
			if log := b.cfg.Logger; log != nil {
				log.Warn("tabguard: hand-back failed", "target", targetID, "method", c.method, "err", err)
			}
			if tr := b.cfg.Trace; tr != nil && tr.HandBackFailed != nil {
				tr.HandBackFailed(tabtrace.HandBack{TargetID: targetID, Method: c.method, Err: err})
			}
		}()
	}
}

// endHandBacks ends the hand-backs under way once each call is in the
// driver's hands, and waits for their goroutines; none is sent after it.
func (b *Browser) endHandBacks() {
	b.mark(&b.handsDone)
	b.handing.Wait()
	b.endHands()
	b.hands.Wait()
}

// undoPolicies undoes the policies a failed start sent, whether or not
// Chrome confirmed them: a call that did not answer in time may still take
// effect. The commands go out after the start's, on the same connection.
func (b *Browser) undoPolicies() {
	calls := []handBackCall{
		{method: "Browser.setDownloadBehavior", params: downloadBehaviorParams{Behavior: "default"}},
		{method: "Browser.resetPermissions"},
	}
	for _, bc := range b.contextIDs() {
		calls = append(calls,
			handBackCall{method: "Browser.setDownloadBehavior", params: downloadBehaviorParams{Behavior: "default", BrowserContextID: bc}},
			handBackCall{method: "Browser.resetPermissions", params: contextParams{BrowserContextID: bc}})
	}
	b.handBack(b.life, b.d, "", calls)
}

// contextParams names a browser context, as Browser.resetPermissions takes it.
type contextParams struct {
	BrowserContextID string `json:"browserContextId,omitempty"`
}
