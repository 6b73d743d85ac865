package engine

import (
	"context"
	"time"
)

// releaseTimeout bounds the calls Close makes to hand the tab back.
const releaseTimeout = time.Second

// release hands back to Chrome what start had it hold for the engine on
// the tab's session, which outlives the Tab: with no Tab to answer them,
// held document requests and certificate errors would wait for good, and
// file choosers would open to nobody. Disabling Fetch lets requests held
// at that moment go on. The script that replaces print is removed: the
// documents the tab loads next have their own print again. It sends
// nothing when the tab or the browser is gone.
func (t *Tab) release() {
	t.mu.Lock()
	s, script := t.tab.State(), t.printScript
	t.mu.Unlock()
	if t.parent.Err() != nil || s.Closed || s.BrowserGone || t.b.lost() {
		return
	}
	ctx, cancel := context.WithTimeout(t.parent, releaseTimeout)
	defer cancel()
	var calls []func() error
	if t.b.cfg.Credentials != nil {
		calls = append(calls, func() error { return t.s.Call(ctx, "Fetch.disable", nil, nil) })
	}
	if len(t.b.cfg.InsecureHosts) > 0 {
		calls = append(calls, func() error {
			return t.s.Call(ctx, "Security.setOverrideCertificateErrors", overrideParams{Override: false}, nil)
		})
	}
	calls = append(calls, func() error {
		return t.s.Call(ctx, "Page.setInterceptFileChooserDialog", interceptParams{Enabled: false}, nil)
	})
	if script != "" {
		calls = append(calls, func() error {
			return t.s.Call(ctx, "Page.removeScriptToEvaluateOnNewDocument", scriptIdentifier{Identifier: script}, nil)
		})
	}
	together(calls...)
}
