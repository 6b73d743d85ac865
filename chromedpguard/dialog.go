package chromedpguard

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/tabguard/tabguard/tabstate"
)

// HandleDialog accepts or dismisses the tab's JavaScript dialog, typing
// promptText into a prompt that is accepted, within Options.EvalTimeout.
// Once it returns, the dialog no longer refuses calls. With no dialog open
// it returns [ErrNoDialog] at once; a closed tab or a lost browser gives
// their [*BlockedError].
//
// chromedp's own listeners must not send this command (chromedp's #984);
// HandleDialog may be called from any goroutine but a Listen func.
func (w *Watcher) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	var n uint64
	err := w.lifecycle(ctx, allowAnyLive, func(ctx context.Context) error {
		w.mu.Lock()
		n = w.tab.Dialogs()
		w.mu.Unlock()
		_, err := cdp.Call(ctx, w.target, page.HandleJavaScriptDialog,
			page.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText})
		return err
	})
	switch {
	case noDialog(err):
		return ErrNoDialog
	case err != nil:
		return err
	}
	// Chrome sent Page.javascriptDialogClosed before its reply, so it is
	// applied already; this covers a dialog whose event never comes.
	w.mu.Lock()
	if w.tab.DialogHandled(n) != 0 {
		w.broadcast()
	}
	w.mu.Unlock()
	return nil
}

// noDialog reports Chrome's answer to handling a dialog that is not open.
func noDialog(err error) bool {
	var ce *cdproto.Error
	return errors.As(err, &ce) && ce.Message == "No dialog is showing"
}

// handleLater handles dialog number n under the dialog policy, off
// chromedp's reading goroutine, which a command sent from it would
// deadlock. w.mu must be held and w not closed.
func (w *Watcher) handleLater(d tabstate.DialogOpening, n uint64) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		ctx, cancel := context.WithTimeout(w.life, w.timeout)
		defer cancel()
		err := w.policyHandle(ctx, d.DefaultPrompt)
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
		w.log.Info("tabguard: JavaScript dialog handled by policy", "target", w.id,
			"policy", w.dialogs, "dialog", tabstate.DialogDetail(d.Type, d.Message))
	}
}

// policyHandle accepts or dismisses the open dialog as the policy says.
func (w *Watcher) policyHandle(ctx context.Context, defaultPrompt string) error {
	_, err := cdp.Call(ctx, w.target, page.HandleJavaScriptDialog,
		page.HandleJavaScriptDialogParams{Accept: w.dialogs == DialogAccept, PromptText: defaultPrompt})
	return err
}

// clearDialog handles, under the dialog policy, a dialog that opened before
// Watch: chromedp enables the Page domain on the tab's session when it
// attaches, so Chrome closes the dialog, or answers "No dialog is showing"
// at once.
func (w *Watcher) clearDialog(ctx context.Context) {
	if err := w.policyHandle(ctx, ""); err == nil && w.log != nil {
		w.log.Info("tabguard: JavaScript dialog that opened before Watch handled by policy",
			"target", w.id, "policy", w.dialogs)
	}
}
