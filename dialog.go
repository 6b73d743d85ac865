package tabguard

import (
	"context"
	"errors"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// ErrNoDialog reports a call to [Watcher.HandleDialog] on a tab that shows
// no JavaScript dialog.
var ErrNoDialog = tabstate.ErrNoDialog

// DialogPolicy says what a [Watcher] does with a JavaScript dialog; see
// [tabstate.DialogPolicy].
type DialogPolicy = tabstate.DialogPolicy

// The dialog policies.
const (
	// DialogRefuse leaves a dialog open: calls are refused with
	// ErrDialogOpen until someone handles it (Watcher.HandleDialog).
	DialogRefuse = tabstate.DialogRefuse
	// DialogAccept accepts each dialog as it opens, as a user pressing OK
	// would: confirm returns true, prompt its default text, and
	// beforeunload lets the page go. An eval that opens a dialog goes on.
	DialogAccept = tabstate.DialogAccept
	// DialogDismiss dismisses each dialog as it opens, as a user pressing
	// Cancel would: confirm returns false, prompt null, and beforeunload
	// keeps the page. An eval that opens a dialog goes on.
	DialogDismiss = tabstate.DialogDismiss
)

// HandleDialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted, within Options.EvalTimeout. It
// handles a dialog that opened before Watch too. Once it returns, the
// dialog no longer refuses calls. With no dialog open it returns
// [ErrNoDialog] at once; a closed tab or a lost browser gives their
// [*BlockedError].
func (w *Watcher) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	var n uint64
	err := w.lifecycle(ctx, allowAnyLive, func(p *rod.Page) error {
		w.mu.Lock()
		n = w.tab.Dialogs()
		w.mu.Unlock()
		return proto.PageHandleJavaScriptDialog{Accept: accept, PromptText: promptText}.Call(p)
	})
	switch {
	case noDialog(err):
		return ErrNoDialog
	case err != nil:
		return err
	}
	// Chrome sent Page.javascriptDialogClosed before its reply; applying it
	// now saves the next call a sync, unless another dialog opened since.
	w.mu.Lock()
	if w.tab.DialogHandled(n) != 0 {
		w.broadcast()
	}
	w.mu.Unlock()
	return nil
}

// noDialog reports Chrome's answer to handling a dialog that is not open.
func noDialog(err error) bool {
	var ce *cdp.Error
	return errors.As(err, &ce) && ce.Message == "No dialog is showing"
}

// handleLater handles dialog number n under the dialog policy, off the
// event loop. w.mu must be held and w not closed.
func (w *Watcher) handleLater(d tabstate.DialogOpening, n uint64) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		ctx, cancel := context.WithTimeout(w.page.GetContext(), w.timeout)
		defer cancel()
		err := w.policyHandle(w.page.Context(ctx), d.DefaultPrompt)
		w.mu.Lock()
		defer w.mu.Unlock()
		switch {
		case err == nil || noDialog(err):
			if w.tab.DialogHandled(n) != 0 {
				w.broadcast()
			}
			return
		case w.closed:
			return
		}
		// The policy could not close it: refuse as under DialogRefuse.
		w.stuckDialog = n
		if err := w.refusal(); err != nil {
			w.failInflight(err)
		}
		w.broadcast()
		w.logf("tabguard: handling a JavaScript dialog failed", err)
	}()
	if w.log != nil {
		w.log.Info("tabguard: JavaScript dialog handled by policy", "target", w.page.TargetID,
			"policy", w.dialogs, "dialog", tabstate.DialogDetail(d.Type, d.Message))
	}
}

// policyHandle accepts or dismisses the open dialog as the policy says.
func (w *Watcher) policyHandle(p *rod.Page, defaultPrompt string) error {
	return proto.PageHandleJavaScriptDialog{Accept: w.dialogs == DialogAccept, PromptText: defaultPrompt}.Call(p)
}

// clearDialog handles, under the dialog policy, a dialog that opened before
// Watch. rod enables the Page domain on the tab's session when it attaches,
// so Chrome knows that session saw the dialog open: Page.handleJavaScriptDialog
// on it closes the dialog, or answers "No dialog is showing" at once.
func (w *Watcher) clearDialog(p *rod.Page) {
	err := w.policyHandle(p, "")
	if err == nil && w.log != nil {
		w.log.Info("tabguard: JavaScript dialog that opened before Watch handled by policy",
			"target", w.page.TargetID, "policy", w.dialogs)
	}
}
