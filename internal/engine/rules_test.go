package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestRecoveryShowsAtOnce holds, in both orders Chrome's replies and events
// can reach a driver, that a recovery that returned shows in the very next
// call: no stale refusal, counted over cycles of each recovery.
func TestRecoveryShowsAtOnce(t *testing.T) {
	recoveries := []struct {
		name   string
		fault  func(fx *fixture)
		want   error
		handle func(fx *fixture, n int)
		heal   func(ctx context.Context, fx *fixture) error
	}{
		{
			name:  "crash then Reload",
			fault: func(fx *fixture) { fx.f.Push(crash("crashed")...) },
			want:  tabstate.ErrTabCrashed,
			handle: func(fx *fixture, n int) {
				loader := "L" + string(rune('a'+n))
				fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
					events := append([]enginetest.Event{enginetest.Page(sess, tabstate.ReloadedAfterCrash{})}, commit(loader, pageURL)...)
					return enginetest.Reply{Result: map[string]any{"frameId": target, "loaderId": loader}, Events: events}
				})
			},
			heal: func(ctx context.Context, fx *fixture) error { return fx.tab.Reload(ctx) },
		},
		{
			name: "failed load then Navigate",
			fault: func(fx *fixture) {
				fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
					return enginetest.Reply{
						Result: map[string]any{"frameId": target, "loaderId": "bad", "errorText": "net::ERR_NAME_NOT_RESOLVED"},
						Events: []enginetest.Event{enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "bad", URL: "http://nowhere.invalid/"})},
					}
				})
				err := fx.tab.Navigate(context.Background(), "http://nowhere.invalid/")
				if !errors.Is(err, tabstate.ErrNoDocument) {
					panic("the failed load did not fail: " + errString(err))
				}
			},
			want: tabstate.ErrNoDocument,
			handle: func(fx *fixture, n int) {
				loader := "L" + string(rune('a'+n))
				fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
					return enginetest.Reply{Result: map[string]any{"frameId": target, "loaderId": loader}, Events: commit(loader, pageURL)}
				})
			},
			heal: func(ctx context.Context, fx *fixture) error { return fx.tab.Navigate(ctx, pageURL) },
		},
		{
			name: "dialog then HandleDialog",
			fault: func(fx *fixture) {
				fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert", Message: "hi"}))
			},
			want: tabstate.ErrDialogOpen,
			handle: func(fx *fixture, _ int) {
				fx.f.Handle("Page.handleJavaScriptDialog", func(string, json.RawMessage) enginetest.Reply {
					return enginetest.Reply{Result: struct{}{}, Events: []enginetest.Event{enginetest.Page(sess, tabstate.DialogClosed{})}}
				})
			},
			heal: func(ctx context.Context, fx *fixture) error { return fx.tab.HandleDialog(ctx, true, "") },
		},
	}
	const cycles = 10
	for _, order := range orders {
		for _, r := range recoveries {
			t.Run(order.String()+"/"+r.name, func(t *testing.T) {
				fx := setup(t, order, engine.Config{EvalTimeout: 2 * time.Second})
				ctx := deadline(t)
				stale := 0
				for n := range cycles {
					r.fault(fx)
					require.ErrorIs(t, fx.tab.Do(ctx, "", ok), r.want, "cycle %d: the fault is refused", n)
					r.handle(fx, n)
					require.NoError(t, r.heal(ctx, fx), "cycle %d", n)
					if err := fx.tab.Do(ctx, "", ok); err != nil {
						stale++
						t.Logf("cycle %d: refused after the recovery: %v", n, err)
					}
				}
				assert.Zero(t, stale, "stale refusals in %d cycles", cycles)
			})
		}
	}
}

// TestCutOffInFlight holds that a crash cuts a call in flight short with
// the crash, status included, whichever of Chrome's two crash events comes
// first.
func TestCutOffInFlight(t *testing.T) {
	for _, order := range orders {
		for _, reversed := range []bool{false, true} {
			name := order.String() + "/inspector-first"
			if reversed {
				name = order.String() + "/target-first"
			}
			t.Run(name, func(t *testing.T) {
				fx := setup(t, order, engine.Config{EvalTimeout: 5 * time.Second, EventGrace: lateGrace})
				events := crash("oom")
				if reversed {
					events[0], events[1] = events[1], events[0]
				}
				var started atomic.Bool
				done := make(chan error, 1)
				go func() {
					done <- fx.tab.Do(deadline(t), "", func(ctx context.Context) error {
						started.Store(true)
						return hang(ctx)
					})
				}()
				require.Eventually(t, started.Load, 5*time.Second, time.Millisecond)
				fx.f.Push(events[0])
				time.AfterFunc(10*time.Millisecond, func() { fx.f.Push(events[1]) })
				err := <-done
				var be *tabstate.BlockedError
				require.ErrorAs(t, err, &be)
				assert.Equal(t, tabstate.ErrTabCrashed, be.Reason)
				assert.Equal(t, "oom", be.Detail, "the crash reads with its status wherever it surfaces")
			})
		}
	}
}

// TestCrashWinsOverAbort holds that a renderer that dies under a
// navigation answers Navigate with the crash, not with the abort Chrome
// reports first, in the reply or in the events.
func TestCrashWinsOverAbort(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{EvalTimeout: 5 * time.Second, EventGrace: lateGrace})
			fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
				// The crash events trail the reply that reports the abort,
				// and the navigation's start.
				return enginetest.Reply{
					Result: map[string]any{"frameId": target, "loaderId": "L", "errorText": "net::ERR_ABORTED"},
					Events: []enginetest.Event{enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "L", URL: pageURL})},
					After:  crash("crashed"),
				}
			})
			err := fx.tab.Navigate(deadline(t), pageURL)
			require.ErrorIs(t, err, tabstate.ErrTabCrashed)
			require.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrTabCrashed)
		})
	}
}

// TestCrashWinsOverDetachedPage holds that a renderer killed under a
// reload answers Reload with the crash: Chrome answers Page.reload "Not
// attached to an active page" before it reports the crash.
func TestCrashWinsOverDetachedPage(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{EvalTimeout: 5 * time.Second, EventGrace: lateGrace})
			fx.f.Handle("Page.reload", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{
					Err:   &enginetest.ProtocolError{Code: -32000, Message: "Not attached to an active page"},
					After: crash("killed"),
				}
			})
			err := fx.tab.Reload(deadline(t))
			require.ErrorIs(t, err, tabstate.ErrTabCrashed)
			assert.Contains(t, err.Error(), "(reason: killed)")
		})
	}
}

// TestRefusalWaitsForCrashStatus holds that a call refused on a crashed
// tab reads as one cut short does: Inspector.targetCrashed, without the
// status, comes first, and the refusal waits for Target.targetCrashed.
func TestRefusalWaitsForCrashStatus(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{EventGrace: lateGrace})
			events := crash("killed")
			fx.f.Push(events[0])
			time.AfterFunc(20*time.Millisecond, func() { fx.f.Push(events[1]) })
			err := fx.tab.Do(deadline(t), "", ok)
			require.ErrorIs(t, err, tabstate.ErrTabCrashed)
			assert.Contains(t, err.Error(), "(reason: killed)")
		})
	}
}

// TestPauseEndsWithResume holds that a pause the page resumes from a
// moment after a call asks is no refusal: Chrome sends Debugger.resumed
// after its reply to Debugger.resume.
func TestPauseEndsWithResume(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{EventGrace: lateGrace})
			fx.f.Push(enginetest.Page(sess, tabstate.Paused{Reason: "other"}))
			time.AfterFunc(10*time.Millisecond, func() { fx.f.Push(enginetest.Page(sess, tabstate.Resumed{})) })
			require.NoError(t, fx.tab.Do(deadline(t), "", ok))
		})
	}
}

// TestFirstLossReasonStays holds that once the connection ended, every
// later refusal carries the first reason seen, not a vaguer later one.
func TestFirstLossReasonStays(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	const reason = `close frame 1011 "session timeout"`
	err := fx.tab.Do(deadline(t), "", func(context.Context) error { return &enginetest.LostError{Reason: reason} })
	var be *tabstate.BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, tabstate.ErrBrowserGone, be.Reason)
	assert.Equal(t, reason, be.Detail)
	fx.b.Disconnected("the DevTools connection closed") // the socket's end, after
	for range 3 {
		err := fx.tab.Do(deadline(t), "", ok)
		require.ErrorAs(t, err, &be)
		assert.Equal(t, reason, be.Detail)
	}
}

// TestIntakeSendsNothing holds that the event intake never sends a
// command, whatever the events (chromedp runs intake on the goroutine that
// reads the socket, where a command deadlocks: chromedp #984).
func TestIntakeSendsNothing(t *testing.T) {
	for _, policy := range []tabstate.DialogPolicy{tabstate.DialogRefuse, tabstate.DialogAccept} {
		t.Run(policy.String(), func(t *testing.T) {
			fx := setup(t, enginetest.EventsFirst, engine.Config{Dialogs: policy, Sink: discard{}})
			before := fx.f.Count("Page.handleJavaScriptDialog") // Watch clears a dialog open before it
			fx.f.Push(
				enginetest.Page(sess, tabstate.DialogOpening{Type: "confirm"}),
				enginetest.Page(sess, tabstate.DialogClosed{}),
				enginetest.Page(sess, tabstate.Paused{}),
				enginetest.Page(sess, tabstate.Resumed{}),
				enginetest.Page(sess, tabstate.LoadingFailed{RequestID: "x", ErrorText: "net::ERR_FAILED"}),
				func(b *engine.Browser) {
					b.TargetCreated(engine.TargetInfo{TargetID: "T2", Type: "page", URL: pageURL, Title: "p"})
					b.TargetInfoChanged(engine.TargetInfo{TargetID: "T2", Type: "page", URL: pageURL, Title: "p", Attached: true})
					b.TargetCrashed("T2", "crashed")
					b.TargetDestroyed("T2")
				},
			)
			fx.f.Push(crash("crashed")...)
			fx.f.Push(func(b *engine.Browser) { b.DetachedFromTarget(sess) })
			fx.f.Push(func(b *engine.Browser) { b.Disconnected("gone") })
			fx.tab.Close() // joins the dialog policy's goroutine
			for _, c := range fx.f.Calls() {
				assert.False(t, c.FromIntake, "%s sent from inside the intake", c.Method)
			}
			if policy == tabstate.DialogAccept {
				assert.Equal(t, before+1, fx.f.Count("Page.handleJavaScriptDialog"), "the policy handles the dialog, off the intake")
			}
		})
	}
}

// discard is a Sink that takes every change.
type discard struct{}

func (discard) Send(engine.Change) bool { return true }
func (discard) Close()                  {}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestLossReasonOfOwnTransport holds that a connection that a transport
// of the program's own ends with an error only it knows (a close frame's
// code and text) is refused with that error as the reason, whether the
// call in flight gets the error before the driver sees its stream end or
// after.
func TestLossReasonOfOwnTransport(t *testing.T) {
	closeFrame := errors.New(`failed to read: received close frame: status = StatusInternalError and reason = "session timeout"`)
	for _, errFirst := range []bool{true, false} {
		name := "stream end first"
		if errFirst {
			name = "call error first"
		}
		t.Run(name, func(t *testing.T) {
			fx := setup(t, enginetest.EventsFirst, engine.Config{})
			fx.f.Handle("Browser.getVersion", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Err: errors.New("use of closed network connection")}
			})
			if errFirst {
				err := fx.tab.Do(deadline(t), "", func(context.Context) error { return closeFrame })
				require.ErrorIs(t, err, closeFrame, "the call in flight reports the transport's error")
				fx.b.Disconnected(fx.b.LostReason())
			} else {
				in := make(chan struct{})
				done := make(chan error, 1)
				go func() {
					done <- fx.tab.Do(deadline(t), "", func(context.Context) error {
						close(in)
						time.Sleep(20 * time.Millisecond) // the transport hands the call its error late
						return closeFrame
					})
				}()
				<-in
				fx.b.Disconnected(fx.b.LostReason())
				<-done
			}
			for range 3 {
				var be *tabstate.BlockedError
				require.ErrorAs(t, fx.tab.Do(deadline(t), "", ok), &be)
				assert.Equal(t, tabstate.ErrBrowserGone, be.Reason)
				assert.Equal(t, closeFrame.Error(), be.Detail, "every later refusal carries the first reason")
			}
		})
	}
}
