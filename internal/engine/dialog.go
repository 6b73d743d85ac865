package engine

import (
	"context"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// noDialog is Chrome's answer to handling a dialog that is not open.
const noDialog = "No dialog is showing"

// HandleDialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted, within the eval timeout. Once
// it returns, the dialog no longer refuses calls. With no dialog open it
// returns ErrNoDialog at once.
func (t *Tab) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	if !t.tracing(ctx) {
		return t.handleDialog(ctx, accept, promptText)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpHandleDialog)
	err := t.handleDialog(ctx, accept, promptText)
	t.callDone(ctx, rec, err)
	return err
}

// handleDialog is HandleDialog.
func (t *Tab) handleDialog(ctx context.Context, accept bool, promptText string) error {
	var n uint64
	err := t.change(ctx, "handle dialog", allowAnyLive, func(ctx context.Context) error {
		t.mu.Lock()
		n = t.tab.Dialogs()
		t.ownDialog = n
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

// dialogOpened acts on dialog number n under the dialog policy: accepted
// or dismissed at once, or, under DialogWait, refused if still open after
// DialogGrace. t.mu must be held and t not closed.
func (t *Tab) dialogOpened(d tabstate.DialogOpening, n uint64) {
	switch t.b.cfg.Dialogs {
	case tabstate.DialogAccept, tabstate.DialogDismiss:
		t.handleLater(d, n)
	case tabstate.DialogWait:
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			timer := time.NewTimer(tabstate.DialogGrace)
			defer timer.Stop()
			select {
			case <-timer.C:
				t.stuck(n, nil)
			case <-t.life.Done():
			}
		}()
	}
}

// stuck refuses dialog number n, as under DialogRefuse, if it is still
// open: the policy could not close it (err), or it outlived DialogGrace.
func (t *Tab) stuck(n uint64, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || t.tab.Dialogs() != n || !t.tab.State().DialogOpen {
		return
	}
	t.stuckDialog = n
	if err := t.refusal(); err != nil {
		t.failInflight(err)
	}
	t.broadcast()
	if err == nil {
		t.logf("tabguard: a JavaScript dialog is still open after "+tabstate.DialogGrace.String()+": refused as under DialogRefuse",
			t.refusal())
		return
	}
	t.logf("tabguard: handling a JavaScript dialog failed", err)
}

// dialogClosed notes, under DialogRefuse, a dialog that another client
// closed at once: a program that handles dialogs itself, whose calls the
// dialog cut short meanwhile. t.mu must be held.
func (t *Tab) dialogClosed(before tabstate.State) {
	log := t.b.cfg.Logger
	if log == nil || !before.DialogOpen || t.b.cfg.Dialogs != tabstate.DialogRefuse ||
		t.ownDialog == t.tab.Dialogs() || time.Since(t.dialogAt) >= tabstate.DialogGrace {
		return
	}
	log.Warn("tabguard: a JavaScript dialog was closed by another client "+time.Since(t.dialogAt).Round(time.Millisecond).String()+
		" after it opened: if the program handles dialogs itself, set Options.Dialogs to DialogWait; to have them handled, DialogAccept or DialogDismiss",
		"target", t.id)
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
		if err != nil && !t.protocolError(err, noDialog) {
			t.stuck(n, err) // the policy could not close it
			return
		}
		t.mu.Lock()
		if t.tab.DialogHandled(n) != 0 {
			t.broadcast()
		}
		t.mu.Unlock()
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
