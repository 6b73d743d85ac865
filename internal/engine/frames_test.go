package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// The frame rules over the fake driver; each keeps a row of the fault
// matrix on a real browser (internal/faultrows, frameRows).

const frame = "F1"

// iframe is what Chrome sends when the page's iframe loads url in the
// page's process.
func iframe(loader, url string) []enginetest.Event {
	return []enginetest.Event{
		enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}),
		enginetest.Page(sess, tabstate.NavigationStarted{FrameID: frame, LoaderID: loader, URL: url}),
		enginetest.Page(sess, tabstate.FrameNavigated{FrameID: frame, ParentID: target, LoaderID: loader, URL: url}),
	}
}

// frameDocument answers the calls that find an in-process frame's
// document, with an iframe whose attributes are attrs.
func frameDocument(f *enginetest.Fake, attrs ...string) {
	answer(f, "DOM.getFrameOwner", map[string]any{"backendNodeId": 5})
	answer(f, "DOM.describeNode", map[string]any{"node": map[string]any{"attributes": attrs, "contentDocument": map[string]any{"backendNodeId": 6}}})
	answer(f, "DOM.resolveNode", map[string]any{"object": map[string]any{"objectId": "doc"}})
}

// value is a Runtime answer whose result is v.
func value(v any) enginetest.Reply {
	return enginetest.Reply{Result: map[string]any{"result": map[string]any{"type": "string", "value": v}}}
}

func TestEvalFrameRules(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			t.Run("reached once per document", func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				fx.f.Push(iframe("L1", "http://127.0.0.1:1/inner")...)
				frameDocument(fx.f)
				fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply { return value("in frame") })
				for i := 0; i < 3; i++ {
					res, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
					require.NoError(t, err)
					assert.JSONEq(t, `{"type":"string","value":"in frame"}`, string(res))
				}
				assert.Equal(t, 1, fx.f.Count("DOM.resolveNode"), "the document is found once")
				fx.f.Push(enginetest.Page(sess, tabstate.FrameNavigated{FrameID: frame, ParentID: target, LoaderID: "L2", URL: "http://127.0.0.1:1/next"}))
				_, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
				require.NoError(t, err)
				assert.Equal(t, 2, fx.f.Count("DOM.resolveNode"), "a new document is found again")
			})
			t.Run("refused up front", func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}),
					enginetest.Page(sess, tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: "http://127.0.0.1:1/"}),
					enginetest.Page(sess, tabstate.LoadingFailed{RequestID: "L1", ErrorText: "net::ERR_CONNECTION_REFUSED"}))
				_, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
				require.ErrorIs(t, err, tabstate.ErrNoDocument)
				var be *tabstate.BlockedError
				require.ErrorAs(t, err, &be)
				assert.Equal(t, frame, be.Frame)
				_, err = fx.tab.EvalFrame(deadline(t), "F9", `() => 1`, nil)
				require.ErrorIs(t, err, tabstate.ErrFrameDetached)
				assert.Zero(t, fx.f.Count("DOM.getFrameOwner")+fx.f.Count("Runtime.callFunctionOn"), "a refusal sends nothing")
				require.NoError(t, fx.tab.Blocked(deadline(t)), "the tab itself is not refused")
			})
			t.Run("first load waited for", func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}))
				frameDocument(fx.f, "loading", "lazy", "src", "/inner")
				ctx, cancel := context.WithTimeout(deadline(t), 300*time.Millisecond)
				defer cancel()
				_, err := fx.tab.EvalFrame(ctx, frame, `() => 1`, nil)
				var te *tabstate.TimeoutError
				require.ErrorAs(t, err, &te, "never the empty initial document")
				assert.Equal(t, tabstate.TimeoutLoading, te.Cause)
				assert.Zero(t, fx.f.Count("Runtime.callFunctionOn"))

				// It loads while a call waits: the call answers from it.
				fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply { return value("loaded") })
				done := make(chan error, 1)
				go func() {
					_, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
					done <- err
				}()
				time.Sleep(50 * time.Millisecond)
				fx.f.Push(enginetest.Page(sess, tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: "http://127.0.0.1:1/inner"}),
					enginetest.Page(sess, tabstate.FrameNavigated{FrameID: frame, ParentID: target, LoaderID: "L1", URL: "http://127.0.0.1:1/inner"}))
				require.NoError(t, <-done)
			})
			t.Run("empty iframe answers", func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}))
				frameDocument(fx.f, "id", "e")
				fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply { return value("written") })
				_, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
				require.NoError(t, err, "an iframe with no src holds its empty document")
			})
			for _, cut := range []struct {
				name  string
				event func(fx *fixture) []enginetest.Event
				want  error
			}{
				{"removed", func(*fixture) []enginetest.Event {
					return []enginetest.Event{enginetest.Page(sess, tabstate.FrameDetached{FrameID: frame, Reason: "remove"})}
				}, tabstate.ErrFrameDetached},
				{"moved out of process", func(*fixture) []enginetest.Event {
					return []enginetest.Event{func(b *engine.Browser) {
						b.TargetCreated(engine.TargetInfo{TargetID: frame, Type: "iframe", ParentID: target})
					}}
				}, tabstate.ErrFrameDetached},
				{"navigated", func(*fixture) []enginetest.Event {
					return []enginetest.Event{enginetest.Page(sess, tabstate.FrameNavigated{FrameID: frame, ParentID: target, LoaderID: "L2", URL: "http://127.0.0.1:1/next"})}
				}, tabstate.ErrNavigated},
				{"tab crashed", func(*fixture) []enginetest.Event { return crash("crashed") }, tabstate.ErrTabCrashed},
			} {
				t.Run("cut: "+cut.name, func(t *testing.T) {
					fx := setup(t, order, engine.Config{})
					fx.f.Push(iframe("L1", "http://127.0.0.1:1/inner")...)
					frameDocument(fx.f)
					fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} })
					done := make(chan error, 1)
					go func() {
						_, err := fx.tab.EvalFrame(deadline(t), frame, `() => new Promise(() => {})`, nil)
						done <- err
					}()
					require.Eventually(t, func() bool { return fx.f.Count("Runtime.callFunctionOn") == 1 }, 5*time.Second, time.Millisecond)
					fx.f.Push(cut.event(fx)...)
					select {
					case err := <-done:
						require.ErrorIs(t, err, cut.want)
					case <-time.After(5 * time.Second):
						t.Fatal("the call in the frame was not cut short")
					}
				})
			}
			t.Run("document gone under the call", func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				fx.f.Push(iframe("L1", "http://127.0.0.1:1/inner")...)
				frameDocument(fx.f)
				fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply {
					return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "Execution context was destroyed."},
						Events: []enginetest.Event{enginetest.Page(sess, tabstate.FrameNavigated{FrameID: frame, ParentID: target, LoaderID: "L2", URL: "http://127.0.0.1:1/next"})}}
				})
				_, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
				require.ErrorIs(t, err, tabstate.ErrNavigated, "Chrome's words become the reason: %v", err)
			})
		})
	}
}

// TestEvalFrameOutOfProcess reaches an out-of-process iframe through a
// session of its own, attached once; its crash cuts a call in flight and
// refuses the next, while the tab answers.
func TestEvalFrameOutOfProcess(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{})
			answer(fx.f, "Target.attachToTarget", map[string]any{"sessionId": "FS"})
			fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}),
				enginetest.Page(sess, tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: "http://localhost:1/inner"}),
				func(b *engine.Browser) {
					b.TargetCreated(engine.TargetInfo{TargetID: frame, Type: "iframe", ParentID: target})
				},
				func(b *engine.Browser) {
					b.TargetInfoChanged(engine.TargetInfo{TargetID: frame, Type: "iframe", ParentID: target, URL: "http://localhost:1/inner"})
				},
				enginetest.Page(sess, tabstate.FrameDetached{FrameID: frame, Reason: "swap"}))
			fs := fx.tab.Frames()
			require.Len(t, fs, 1)
			assert.True(t, fs[0].OutOfProcess)
			assert.False(t, fs[0].Loading)

			hang := make(chan struct{})
			fx.f.Handle("Runtime.evaluate", evaluate(func(session string, params json.RawMessage) enginetest.Reply {
				if session == "FS" {
					select {
					case <-hang:
						return enginetest.Reply{Hang: true}
					default:
						return value("in frame")
					}
				}
				return value("in page")
			}))
			for i := 0; i < 2; i++ {
				res, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
				require.NoError(t, err)
				assert.JSONEq(t, `{"type":"string","value":"in frame"}`, string(res))
			}
			assert.Equal(t, 1, fx.f.Count("Target.attachToTarget"), "attached once")

			close(hang)
			done := make(chan error, 1)
			go func() {
				_, err := fx.tab.EvalFrame(deadline(t), frame, `() => new Promise(() => {})`, nil)
				done <- err
			}()
			time.Sleep(50 * time.Millisecond)
			fx.f.Push(func(b *engine.Browser) { b.TargetCrashed(frame, "crashed") })
			select {
			case err := <-done:
				require.ErrorIs(t, err, tabstate.ErrFrameCrashed)
				assert.Contains(t, err.Error(), "http://localhost:1/inner")
			case <-time.After(5 * time.Second):
				t.Fatal("the call in the crashed frame was not cut short")
			}
			_, err := fx.tab.EvalFrame(deadline(t), frame, `() => 1`, nil)
			require.ErrorIs(t, err, tabstate.ErrFrameCrashed)
			require.NoError(t, fx.tab.Blocked(deadline(t)), "the tab lives on")
			require.NoError(t, fx.tab.Do(deadline(t), "", ok))

			fx.tab.Close()
			assert.Equal(t, 1, fx.f.Count("Target.detachFromTarget"), "the frame's session is detached")
		})
	}
}

// TestFramesNoCalls holds that following frames sends nothing: a tab's
// frames are listed from its events, and a tab without iframes sends for
// an eval what it sent before frames were followed.
func TestFramesNoCalls(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	fx.tab.Frames() // learns the frames of a tab watched after its load, once
	before := len(fx.f.Calls())
	fx.f.Push(commit("L2", pageURL)...)
	fx.f.Push(iframe("L3", "http://127.0.0.1:1/inner")...)
	for i := 0; i < 3; i++ {
		require.Len(t, fx.tab.Frames(), 1)
	}
	require.NoError(t, fx.tab.Do(deadline(t), "", ok))
	assert.Len(t, fx.f.Calls(), before, "listing frames and an eval on the tab send nothing")
}

// TestEvalFrameLateBlank holds that Chrome's late report of an iframe's
// empty initial document (a commit of about:blank) does not make a lazy
// iframe answer from it, while an iframe with no page does.
func TestEvalFrameLateBlank(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs []string
		wait  bool
	}{{"lazy", []string{"loading", "lazy", "src", "/inner"}, true}, {"no page", []string{"id", "e"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			fx := setup(t, enginetest.EventsFirst, engine.Config{})
			fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}),
				enginetest.Page(sess, tabstate.FrameNavigated{FrameID: frame, ParentID: target, LoaderID: "L0", URL: "about:blank"}))
			frameDocument(fx.f, tc.attrs...)
			fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply { return value("blank") })
			ctx, cancel := context.WithTimeout(deadline(t), 300*time.Millisecond)
			defer cancel()
			_, err := fx.tab.EvalFrame(ctx, frame, `() => 1`, nil)
			if !tc.wait {
				require.NoError(t, err)
				return
			}
			var te *tabstate.TimeoutError
			require.ErrorAs(t, err, &te, "never the empty initial document")
			assert.Contains(t, te.Doing, "never loaded a document")
			assert.Zero(t, fx.f.Count("Runtime.callFunctionOn"))
		})
	}
}
