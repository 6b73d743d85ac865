package engine_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// lifecycleEvent is Page.lifecycleEvent of the watched tab's frame.
func lifecycleEvent(frame, loader, name string) enginetest.Event {
	return enginetest.Page(sess, tabstate.LifecycleEvent{FrameID: frame, LoaderID: loader, Name: name})
}

// replayed is what Chrome sends when Page.setLifecycleEventsEnabled
// enables the events on a loaded page: the milestones its document (loader
// L0) reached, but its paints, and its iframe's.
func replayed() []enginetest.Event {
	return []enginetest.Event{
		lifecycleEvent(target, "L0", "commit"), lifecycleEvent(target, "L0", "DOMContentLoaded"),
		lifecycleEvent(target, "L0", "load"), lifecycleEvent(target, "L0", "networkAlmostIdle"),
		lifecycleEvent(target, "L0", "networkIdle"),
		lifecycleEvent("F2", "L9", "DOMContentLoaded"),
	}
}

// watchLifecycle is setup with lifecycle answering
// Page.setLifecycleEventsEnabled.
func watchLifecycle(t *testing.T, order enginetest.Order, cfg engine.Config, lifecycle enginetest.Handler) *fixture {
	t.Helper()
	return setupWith(t, order, cfg, pageURL, map[string]enginetest.Handler{"Page.setLifecycleEventsEnabled": lifecycle})
}

// reached is a Wait condition: the document reached every milestone of m.
func reached(m tabstate.Milestone) func(tabstate.State) bool {
	return func(s tabstate.State) bool { return s.Reached(m) }
}

// Watch enables lifecycle events once, and the milestones Chrome tells
// again for the page the tab has count, whether they reach the engine
// before the start has learned the page is committed or after; an
// iframe's do not.
func TestWatchEnablesLifecycleEvents(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := watchLifecycle(t, order, engine.Config{}, func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Events: replayed()}
			})
			s, err := fx.tab.Wait(deadline(t), reached(tabstate.NetworkIdle))
			require.NoError(t, err)
			if want := tabstate.DOMContentLoaded | tabstate.NetworkAlmostIdle | tabstate.NetworkIdle; s.Milestones != want {
				t.Errorf("Milestones = %v; want %v", s.Milestones, want)
			}
			var sent []string
			for _, c := range fx.f.Calls() {
				if c.Method == "Page.setLifecycleEventsEnabled" {
					sent = append(sent, c.Session+" "+string(c.Params))
				}
			}
			if diff := cmp.Diff([]string{sess + ` {"enabled":true}`}, sent); diff != "" {
				t.Errorf("Page.setLifecycleEventsEnabled calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Navigate returns with the new document's milestones empty: the old
// document's, and its late ones, are gone; an iframe's never count; a
// Wait for one of the new document's wakes when it comes.
func TestNavigateClearsMilestones(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := watchLifecycle(t, order, engine.Config{}, func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Events: replayed()}
			})
			ctx := deadline(t)
			_, err := fx.tab.Wait(ctx, reached(tabstate.NetworkIdle))
			require.NoError(t, err)
			fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{"frameId": target, "loaderId": "L1"}, Events: []enginetest.Event{
					enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "L1", URL: pageURL + "?next", Type: "differentDocument"}),
					lifecycleEvent(target, "L1", "init"),
					enginetest.Page(sess, tabstate.FrameNavigated{FrameID: target, LoaderID: "L1", URL: pageURL + "?next"}),
				}}
			})
			require.NoError(t, fx.tab.Navigate(ctx, pageURL+"?next"))
			fx.f.Push() // the events of the reply, under ReplyFirst
			if got := fx.tab.State().Milestones; got != 0 {
				t.Errorf("right after Navigate, Milestones = %v; want none", got)
			}
			fx.f.Push(lifecycleEvent(target, "L0", "firstMeaningfulPaint"), lifecycleEvent("F2", "L9", "networkIdle"))
			if got := fx.tab.State().Milestones; got != 0 {
				t.Errorf("after the old document's and an iframe's milestones, Milestones = %v; want none", got)
			}

			type result struct {
				s   tabstate.State
				err error
			}
			done := make(chan result, 1)
			go func() {
				s, err := fx.tab.Wait(ctx, reached(tabstate.NetworkIdle))
				done <- result{s, err}
			}()
			fx.f.Push(lifecycleEvent(target, "L1", "DOMContentLoaded"), lifecycleEvent(target, "L1", "firstContentfulPaint"),
				lifecycleEvent(target, "L1", "networkIdle"))
			r := <-done
			require.NoError(t, r.err)
			if want := tabstate.DOMContentLoaded | tabstate.FirstContentfulPaint | tabstate.NetworkIdle; r.s.Milestones != want {
				t.Errorf("Wait returned Milestones = %v; want %v", r.s.Milestones, want)
			}
		})
	}
}

// A renderer that holds Page.setLifecycleEventsEnabled (a busy script)
// fails no start: the watcher asks again, and the milestones come once
// the renderer answers.
func TestLifecycleEnabledLaterOnABusyTab(t *testing.T) {
	var calls atomic.Int32
	fx := watchLifecycle(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 200 * time.Millisecond}, func(string, json.RawMessage) enginetest.Reply {
		if calls.Add(1) == 1 {
			return enginetest.Reply{Hang: true}
		}
		return enginetest.Reply{Events: replayed()}
	})
	s, err := fx.tab.Wait(deadline(t), reached(tabstate.NetworkIdle))
	require.NoError(t, err)
	if want := tabstate.DOMContentLoaded | tabstate.NetworkAlmostIdle | tabstate.NetworkIdle; s.Milestones != want {
		t.Errorf("Milestones = %v; want %v", s.Milestones, want)
	}
	if n := fx.f.Count("Page.setLifecycleEventsEnabled"); n != 2 {
		t.Errorf("Page.setLifecycleEventsEnabled sent %d times; want 2: once at the start, once more when it timed out", n)
	}
}
