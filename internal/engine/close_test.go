package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// TestCloseTabAsksAgain holds CloseTab to Chrome's report that the tab is
// gone, not to its answer: Chrome now and then answers Target.closeTarget
// and leaves the tab open, so CloseTab asks again until the tab leaves the
// list, and returns only then, in both orders of replies and events.
func TestCloseTabAsksAgain(t *testing.T) {
	const ignored = 2 // closes Chrome answers and does not do
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{})
			require.True(t, listed(fx.b, target), "the tab is listed before the close")
			var asked atomic.Int32
			fx.f.Handle("Target.closeTarget", func(string, json.RawMessage) enginetest.Reply {
				reply := enginetest.Reply{Result: map[string]any{"success": true}}
				if asked.Add(1) > ignored {
					reply.Events = []enginetest.Event{func(b *engine.Browser) { b.TargetDestroyed(target) }}
				}
				return reply
			})
			require.NoError(t, fx.tab.CloseTab(deadline(t)))
			assert.Equal(t, ignored+1, fx.f.Count("Target.closeTarget"), "asked until Chrome closed it")
			assert.False(t, listed(fx.b, target), "CloseTab returned with the tab listed")
		})
	}
}

// listed reports whether b lists the tab id.
func listed(b *engine.Browser, id string) bool {
	for _, ti := range b.Tabs() {
		if ti.TargetID == id {
			return true
		}
	}
	return false
}

// A tab Chrome no longer has is closed: CloseOwnTab, where Open gives up
// on a tab, and CloseTab both take Chrome's "No target with given id"
// for what they were asked to do, and ask once.
func TestCloseTabGoneAlready(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{})
			fx.f.Handle("Target.closeTarget", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32602, Message: "No target with given id found"}}
			})
			require.NoError(t, fx.b.CloseOwnTab("elsewhere"))
			require.NoError(t, fx.tab.CloseTab(deadline(t)))
			assert.Equal(t, 2, fx.f.Count("Target.closeTarget"))
		})
	}
}

// TestBrowserCloseReleasesSideBySide holds that a Browser closes its tabs
// side by side: Chrome leaves the Page commands of a crashed or busy tab
// unanswered, so each tab's hand-back waits out its bound, and one after
// the other, a browser of many such tabs would take that bound once a tab.
// Each tab's hand-back here answers only once every tab's has arrived.
func TestBrowserCloseReleasesSideBySide(t *testing.T) {
	const tabs = 4
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	for i := 2; i <= tabs; i++ {
		_, err := fx.b.Watch(engine.TabHandle{Session: fx.f.Session(fmt.Sprint("S", i)), TargetID: fmt.Sprint("T", i),
			SessionID: fmt.Sprint("S", i), Life: context.Background()})
		require.NoError(t, err)
	}
	var arrived, met atomic.Int32
	all := make(chan struct{})
	fx.f.Handle("Page.setInterceptFileChooserDialog", func(_ string, params json.RawMessage) enginetest.Reply {
		var p struct{ Enabled bool }
		_ = json.Unmarshal(params, &p)
		if !p.Enabled {
			if arrived.Add(1) == tabs {
				close(all)
			}
			select {
			case <-all:
				met.Add(1)
			case <-time.After(2 * time.Second):
			}
		}
		return enginetest.Reply{Result: struct{}{}}
	})
	fx.b.Close()
	assert.Equal(t, int32(tabs), arrived.Load(), "every tab was handed back")
	assert.Equal(t, int32(tabs), met.Load(), "hand-backs in flight together")
}
