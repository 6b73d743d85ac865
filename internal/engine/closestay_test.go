package engine_test

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// stayingPage answers as a page that asks to stay does in Chrome: the tab
// closes only once its beforeunload dialog is accepted. open says whether
// Target.closeTarget opens the dialog (a browser that runs beforeunload on
// it) rather than finding it open.
func stayingPage(fx *fixture, open bool) {
	var accepted atomic.Bool
	gone := func(b *engine.Browser) { b.TargetDestroyed(target) }
	fx.f.Handle("Page.handleJavaScriptDialog", func(_ string, params json.RawMessage) enginetest.Reply {
		var p struct{ Accept bool }
		_ = json.Unmarshal(params, &p)
		accepted.Store(p.Accept)
		events := []enginetest.Event{enginetest.Page(sess, tabstate.DialogClosed{})}
		if open && p.Accept {
			events = append(events, gone) // the close goes on
		}
		return enginetest.Reply{Result: map[string]any{}, Events: events}
	})
	fx.f.Handle("Target.closeTarget", func(string, json.RawMessage) enginetest.Reply {
		reply := enginetest.Reply{Result: map[string]any{"success": true}}
		switch {
		case accepted.Load():
			reply.Events = []enginetest.Event{gone}
		case open:
			reply.Events = []enginetest.Event{enginetest.Page(sess, tabstate.DialogOpening{Type: "beforeunload"})}
		}
		return reply
	})
}

// TestCloseTabPageAsksToStay holds that CloseTab, by default, closes a
// page that asks to stay: a beforeunload dialog open before the call, or
// opened by it, is accepted from the caller's goroutine, and CloseTab
// returns once the tab is gone, in both orders of replies and events.
func TestCloseTabPageAsksToStay(t *testing.T) {
	for _, order := range orders {
		for _, tc := range []struct {
			name string
			open bool // Target.closeTarget opens the dialog
		}{{"dialog open before", false}, {"dialog opened by the close", true}} {
			t.Run(order.String()+"/"+tc.name, func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				stayingPage(fx, tc.open)
				if !tc.open {
					fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "beforeunload"}))
				}
				require.NoError(t, fx.tab.CloseTab(deadline(t)))
				assert.False(t, listed(fx.b, target), "CloseTab returned with the tab listed")
				assert.Equal(t, 1, fx.f.Count("Page.handleJavaScriptDialog"), "the dialog accepted once")
				assert.Zero(t, fx.f.Count("Page.close"), "no page asked")
			})
		}
	}
}

// TestCloseTabAskBeforeClose holds AskBeforeClose: CloseTab asks the page
// with Page.close; a page that asks to stay keeps its tab, and CloseTab
// refuses at once with ErrDialogOpen, the dialog left open, whether the
// dialog's event comes before Page.close's reply or after it. Once the
// dialog is handled, the tab answers. A page that lets go is closed, and
// a beforeunload dialog open already is refused with no command.
func TestCloseTabAskBeforeClose(t *testing.T) {
	cfg := engine.Config{AskBeforeClose: true}
	for _, order := range orders {
		t.Run(order.String()+"/asks to stay", func(t *testing.T) {
			fx := setup(t, order, cfg)
			fx.f.Handle("Page.close", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{}, Events: []enginetest.Event{
					enginetest.Page(sess, tabstate.DialogOpening{Type: "beforeunload"})}}
			})
			err := fx.tab.CloseTab(deadline(t))
			require.ErrorIs(t, err, tabstate.ErrDialogOpen)
			var be *tabstate.BlockedError
			require.True(t, errors.As(err, &be))
			assert.Equal(t, `beforeunload ""`, be.Detail)
			assert.True(t, listed(fx.b, target), "the tab stays")
			assert.Zero(t, fx.f.Count("Target.closeTarget"))
			require.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrDialogOpen, "the dialog is left open")

			fx.f.Handle("Page.handleJavaScriptDialog", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{}, Events: []enginetest.Event{enginetest.Page(sess, tabstate.DialogClosed{})}}
			})
			require.NoError(t, fx.tab.HandleDialog(deadline(t), false, ""))
			require.NoError(t, fx.tab.Do(deadline(t), "", ok), "the tab answers once the dialog is handled")

			// Open already: refused with no command.
			fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "beforeunload"}))
			require.ErrorIs(t, fx.tab.CloseTab(deadline(t)), tabstate.ErrDialogOpen)
			assert.Equal(t, 1, fx.f.Count("Page.close"))
		})
		t.Run(order.String()+"/lets go", func(t *testing.T) {
			fx := setup(t, order, cfg)
			fx.f.Handle("Page.close", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{}, Events: []enginetest.Event{
					func(b *engine.Browser) { b.TargetDestroyed(target) }}}
			})
			require.NoError(t, fx.tab.CloseTab(deadline(t)))
			assert.False(t, listed(fx.b, target))
			assert.Zero(t, fx.f.Count("Target.closeTarget"))
		})
		t.Run(order.String()+"/accepted by the dialog policy", func(t *testing.T) {
			fx := setup(t, order, engine.Config{AskBeforeClose: true, Dialogs: tabstate.DialogAccept})
			fx.f.Handle("Page.close", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{}, Events: []enginetest.Event{
					enginetest.Page(sess, tabstate.DialogOpening{Type: "beforeunload"})}}
			})
			fx.f.Handle("Page.handleJavaScriptDialog", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{}, Events: []enginetest.Event{
					enginetest.Page(sess, tabstate.DialogClosed{}), func(b *engine.Browser) { b.TargetDestroyed(target) }}}
			})
			require.NoError(t, fx.tab.CloseTab(deadline(t)))
			assert.False(t, listed(fx.b, target))
		})
	}
}
