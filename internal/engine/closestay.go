package engine

import (
	"context"
	"errors"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// A page that asks to stay is one with a beforeunload handler, after a user
// gesture. Measured on Chromium 156: Target.closeTarget runs no
// beforeunload handler and closes such a page in a few milliseconds; with
// a beforeunload dialog already open (a navigation asked), it closes the
// tab only about 500 ms later, and at once once the dialog is accepted.
// Page.close runs the handlers: it answers at once, the dialog opens about
// 2 ms later, and the tab stays until the dialog is accepted (a dismissed
// one keeps the page). That is why rod's Page.Close, which waits for the
// tab to go, hangs there.

// beforeUnload is the type of the dialog a page that asks to stay opens.
const beforeUnload = "beforeunload"

// The engine's patience (Config.patience, 1 s by default, or more as the
// link shows) bounds Page.handleJavaScriptDialog when CloseTab accepts a
// beforeunload dialog (the browser side answers it), and how long
// CloseTab, under AskBeforeClose, waits after Page.close for the tab to go
// or for its page to ask to stay, before it closes the tab from the
// browser side: a renderer that cannot run the handlers (hung, busy in a
// script) does neither.

// stayAnswer is the number of the last beforeunload dialog closeTarget
// accepted.
type stayAnswer struct{ n uint64 }

// accept accepts t's beforeunload dialog, when one is open that it has not
// accepted yet, and returns a channel closed at t's next change: nil (which
// never fires) for no Tab or a closed one. It runs on CloseTab's
// goroutine, never on the intake, which must not send a command.
func (a *stayAnswer) accept(ctx context.Context, t *Tab) <-chan struct{} {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	s, n, changed := t.tab.State(), t.tab.Dialogs(), t.changed
	t.mu.Unlock()
	if !s.DialogOpen || s.DialogType != beforeUnload || n == a.n {
		return changed
	}
	a.n = n
	actx, cancel := context.WithTimeout(ctx, t.b.patience())
	defer cancel()
	if err := t.s.Call(actx, "Page.handleJavaScriptDialog", handleDialogParams{Accept: true}, nil); err != nil {
		return changed // closeTarget closes it all the same, only later
	}
	t.mu.Lock()
	if t.tab.DialogHandled(n) != 0 {
		t.broadcast()
	}
	t.mu.Unlock()
	if log := t.b.cfg.Logger; log != nil {
		log.Info("tabguard: a beforeunload dialog accepted to close the tab", "target", t.id)
	}
	return changed
}

// closeAsking closes the tab as a user would, under AskBeforeClose:
// Page.close runs the page's beforeunload handlers. It reports done once
// it has the answer: the tab gone (nil), or the page asking to stay (the
// refusal, and the tab left open). A tab it cannot ask (crashed, gone,
// holding another dialog or paused), a Page.close that fails, and a tab
// that neither goes nor asks within the engine's patience are not done: the caller
// closes them from the browser side.
func (t *Tab) closeAsking(ctx context.Context) (done bool, err error) {
	t.mu.Lock()
	s, n0, closed := t.tab.State(), t.tab.Dialogs(), t.closed
	t.mu.Unlock()
	switch {
	case closed:
		return false, nil
	case s.DialogOpen && s.DialogType == beforeUnload:
		return true, t.stayed(s)
	case tabstate.Blocked(s) != nil:
		return false, nil
	}
	removed := t.b.removed(t.id)
	if err := t.s.Call(ctx, "Page.close", nil, nil); err != nil {
		return false, nil
	}
	timer := time.NewTimer(t.b.patience())
	defer timer.Stop()
	for {
		t.mu.Lock()
		s, n, changed := t.tab.State(), t.tab.Dialogs(), t.changed
		t.mu.Unlock()
		if n > n0 && t.b.cfg.Dialogs != tabstate.DialogAccept {
			// Under DialogDismiss the policy has kept the page too.
			return true, t.stayed(s)
		}
		select {
		case <-removed:
			return true, nil
		case <-changed:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, nil
		}
	}
}

// stayed is CloseTab's refusal of a page that asks to stay, whose state
// is s.
func (t *Tab) stayed(s tabstate.State) error {
	msg := ""
	if s.DialogOpen {
		msg = s.DialogMessage
	}
	if log := t.b.cfg.Logger; log != nil {
		log.Info("tabguard: the page asked to stay: tab left open", "target", t.id)
	}
	return refusal(t.b.cfg.Advice, &tabstate.BlockedError{
		Reason: tabstate.ErrDialogOpen, URL: s.URL, Detail: tabstate.DialogDetail(beforeUnload, msg),
	})
}

// KeptOpen reports whether err is CloseTab's refusal of a page that asks
// to stay, which leaves the tab open and the Tab watching it: the
// backend's watcher stays open too.
func KeptOpen(err error) bool { return errors.Is(err, tabstate.ErrDialogOpen) }
