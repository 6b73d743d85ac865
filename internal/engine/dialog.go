package engine

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// noDialog is Chrome's answer to handling a dialog that is not open.
const noDialog = "No dialog is showing"

// HandleDialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted, within the eval timeout. Once
// it returns, the dialog no longer refuses calls. With no dialog open it
// returns ErrNoDialog at once.
func (t *Tab) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	var n uint64
	err := t.change(ctx, "handle dialog", allowAnyLive, func(ctx context.Context) error {
		t.mu.Lock()
		n = t.tab.Dialogs()
		t.mu.Unlock()
		return t.s.Call(ctx, "Page.handleJavaScriptDialog", handleDialogParams{Accept: accept, PromptText: promptText}, nil)
	})
	switch {
	case t.protocolError(err, noDialog):
		return tabstate.ErrNoDialog
	case err != nil:
		return err
	}
	// Chrome sent Page.javascriptDialogClosed before its reply; applying it
	// now saves the next call a sync, unless another dialog opened since,
	// and covers a dialog whose event never comes.
	t.mu.Lock()
	if t.tab.DialogHandled(n) != 0 {
		t.broadcast()
	}
	t.mu.Unlock()
	return nil
}

// handleLater handles dialog number n under the dialog policy, off the
// event intake, which must not send a command. t.mu must be held and t not
// closed.
func (t *Tab) handleLater(d tabstate.DialogOpening, n uint64) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.life, t.timeout)
		defer cancel()
		err := t.policyHandle(ctx, d.DefaultPrompt)
		t.mu.Lock()
		defer t.mu.Unlock()
		switch {
		case err == nil || t.protocolError(err, noDialog):
			if t.tab.DialogHandled(n) != 0 {
				t.broadcast()
			}
			return
		case t.closed:
			return
		}
		// The policy could not close it: refuse as under DialogRefuse.
		t.stuckDialog = n
		if err := t.refusal(); err != nil {
			t.failInflight(err)
		}
		t.broadcast()
		t.logf("tabguard: handling a JavaScript dialog failed", err)
	}()
	if log := t.b.cfg.Logger; log != nil {
		log.Info("tabguard: JavaScript dialog handled by policy", "target", t.id,
			"policy", t.b.cfg.Dialogs, "dialog", tabstate.DialogDetail(d.Type, d.Message))
	}
}

// policyHandle accepts or dismisses the open dialog as the policy says.
func (t *Tab) policyHandle(ctx context.Context, defaultPrompt string) error {
	p := handleDialogParams{Accept: t.b.cfg.Dialogs == tabstate.DialogAccept, PromptText: defaultPrompt}
	return t.s.Call(ctx, "Page.handleJavaScriptDialog", p, nil)
}

// clearDialog handles, under the dialog policy, a dialog that opened
// before Watch. Both drivers enable the Page domain on the tab's session
// when they attach, so Chrome knows that session saw the dialog open:
// Page.handleJavaScriptDialog on it closes the dialog, or answers "No
// dialog is showing" at once.
func (t *Tab) clearDialog(ctx context.Context) {
	err := t.policyHandle(ctx, "")
	if log := t.b.cfg.Logger; err == nil && log != nil {
		log.Info("tabguard: JavaScript dialog that opened before Watch handled by policy",
			"target", t.id, "policy", t.b.cfg.Dialogs)
	}
}
