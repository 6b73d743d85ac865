package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestAdvice holds that a program's table of remedies words every error
// the way it says, refusals, cut-offs and timeouts alike, and that what the
// table leaves out keeps the default.
func TestAdvice(t *testing.T) {
	advice := &tabstate.Advice{
		Refused:  map[error]string{tabstate.ErrTabCrashed: "call reload_tab"},
		TimedOut: map[tabstate.TimeoutCause]string{tabstate.TimeoutBusyScript: "retry the call"},
	}
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond, Advice: advice})

	busyScript(fx)
	err := fx.tab.Do(deadline(t), "", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "retry the call", te.Advice)

	fx.f.Push(enginetest.Page(sess, tabstate.DialogOpening{Type: "alert", Message: "hi"}))
	err = fx.tab.Do(deadline(t), "", ok)
	assert.EqualError(t, err, `tab has a JavaScript dialog open: alert "hi": accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs`,
		"a reason the table leaves out keeps the default")
	fx.f.Push(enginetest.Page(sess, tabstate.DialogClosed{}))

	done := make(chan error, 1)
	go func() { done <- fx.tab.Do(deadline(t), "", func(ctx context.Context) error { return hang(ctx) }) }()
	time.Sleep(10 * time.Millisecond)
	fx.f.Push(crash("oom")...)
	assert.EqualError(t, <-done, "tab renderer crashed (reason: oom): call reload_tab", "a call cut short")
	assert.EqualError(t, fx.tab.Do(deadline(t), "", ok), "tab renderer crashed (reason: oom): call reload_tab", "a refusal")
	assert.EqualError(t, fx.b.Tabs()[0].Refusal, "tab renderer crashed (reason: oom): call reload_tab", "Tabs")
}

// TestFrameAdvice holds the same for an iframe's refusals and for a call
// that waited for a frame's first document: the frame's own table wins, a
// frame with no document keeps advice that brings it back, and a refusal
// the frame's table leaves out takes the tab's.
func TestFrameAdvice(t *testing.T) {
	advice := &tabstate.Advice{
		Refused:      map[error]string{tabstate.ErrNoDocument: "call navigate", tabstate.ErrFrameCrashed: "call reload_tab"},
		FrameRefused: map[error]string{tabstate.ErrFrameDetached: "call list_frames"},
		FrameLazy:    "scroll it into view with eval_in_tab",
		FrameLoading: "call list_frames",
	}
	fx := setup(t, enginetest.EventsFirst, engine.Config{Advice: advice})
	fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: "lazy", ParentID: target}),
		enginetest.Page(sess, tabstate.FrameAttached{FrameID: "stalled", ParentID: target}),
		enginetest.Page(sess, tabstate.NavigationStarted{FrameID: "stalled", LoaderID: "L1", URL: "http://127.0.0.1:1/stall"}),
		enginetest.Page(sess, tabstate.FrameAttached{FrameID: "failed", ParentID: target}),
		enginetest.Page(sess, tabstate.NavigationStarted{FrameID: "failed", LoaderID: "L2", URL: "http://127.0.0.1:1/dead"}),
		enginetest.Page(sess, tabstate.LoadingFailed{RequestID: "L2", ErrorText: "net::ERR_CONNECTION_REFUSED"}))
	frameDocument(fx.f, "loading", "lazy", "src", "/inner") // "lazy" is out of view: it lies nowhere

	_, err := fx.tab.EvalFrame(deadline(t), "gone", `() => 1`, nil)
	assert.EqualError(t, err, "frame is detached: no such frame in the tab (frame gone): call list_frames")
	_, err = fx.tab.EvalFrame(deadline(t), "failed", `() => 1`, nil)
	assert.EqualError(t, err, "frame has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:1/dead: reload the tab (Watcher.Reload)",
		"not the tab's navigate")
	for id, want := range map[string]string{"lazy": advice.FrameLazy, "stalled": advice.FrameLoading} {
		ctx, cancel := context.WithTimeout(deadline(t), time.Second) // time to ask the iframe why
		_, err = fx.tab.EvalFrame(ctx, id, `() => 1`, nil)
		cancel()
		var te *tabstate.TimeoutError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, want, te.Advice, id)
		assert.Equal(t, id, te.Frame)
	}
}

// TestAdviceWord holds that Advice.Word words the advice of every error,
// after the tables, and that an empty word leaves the advice out: the
// error then reads as its problem alone, for errors shown to a service's
// users.
func TestAdviceWord(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	advice := &tabstate.Advice{
		Refused: map[error]string{tabstate.ErrTabCrashed: "call reload_tab"},
		Word: func(err error, advice string) string {
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(seen, advice) {
				seen = append(seen, advice)
			}
			return ""
		},
	}
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond, Advice: advice})

	busyScript(fx)
	err := fx.tab.Do(deadline(t), "", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Empty(t, te.Advice)
	assert.Equal(t, te.Problem(), err.Error(), "a timeout with no advice")

	fx.f.Push(crash("oom")...)
	err = fx.tab.Do(deadline(t), "", ok)
	assert.EqualError(t, err, "tab renderer crashed (reason: oom)", "a refusal with no advice")
	assert.ErrorIs(t, err, tabstate.ErrTabCrashed)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{
		"stop it with Watcher.Recover, which keeps the page, or set Options.TerminateOnTimeout",
		"call reload_tab",
	}, seen, "Word gets the advice the watcher would give, after the tables")
}
