package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// A call the drop cut answers ErrConnectionDropped once the connection is
// resumed, whatever the driver gave it: the connection's answer to it, or
// an error of the driver's own. Never a success, never ErrBrowserGone.
func TestDroppedCallAnswersResumed(t *testing.T) {
	t.Parallel()
	for _, driverErr := range []error{
		&enginetest.ProtocolError{Code: engine.DroppedCode, Message: "the connection to the browser dropped during this call"},
		errors.New("a transport's own error"),
	} {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		sent := make(chan struct{})
		answer := make(chan error)
		done := make(chan error, 1)
		go func() {
			done <- fx.tab.Do(deadline(t), "", func(context.Context) error {
				close(sent)
				return <-answer
			})
		}()
		<-sent
		fx.b.Dropped("connection reset")
		fx.b.Resumed(42 * time.Millisecond)
		answer <- driverErr
		err := <-done
		require.ErrorIs(t, err, tabstate.ErrConnectionDropped)
		assert.NotErrorIs(t, err, tabstate.ErrBrowserGone)
		assert.Equal(t, "connection to the browser dropped (connection reset; resumed after 42ms: the call may be sent again): "+
			"retry the call once the connection is resumed", err.Error())
	}
}

// A call made while the connection resumes waits for it, sending nothing
// meanwhile, and then runs; one whose deadline ends first answers
// ErrConnectionDropped, still resuming.
func TestCallWaitsForResume(t *testing.T) {
	t.Parallel()
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	fx.b.Dropped("connection closed without a close frame")

	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := fx.tab.Do(short, "", ok)
	require.ErrorIs(t, err, tabstate.ErrConnectionDropped)
	assert.Contains(t, err.Error(), "connection closed without a close frame; resuming for ")

	ran := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- fx.tab.Do(deadline(t), "", func(context.Context) error {
			close(ran)
			return nil
		})
	}()
	select {
	case <-ran:
		t.Fatal("the call ran while the connection resumed")
	case <-time.After(100 * time.Millisecond):
	}
	fx.b.Resumed(time.Millisecond)
	require.NoError(t, <-done)
}

// A connection that is not resumed ends as a lost one: the calls in
// flight and the calls waiting answer ErrBrowserGone.
func TestDropNotResumed(t *testing.T) {
	t.Parallel()
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	sent := make(chan struct{})
	inFlight := make(chan error, 1)
	go func() {
		inFlight <- fx.tab.Do(deadline(t), "", func(ctx context.Context) error {
			close(sent)
			return hang(ctx)
		})
	}()
	<-sent
	fx.b.Dropped("connection reset")
	waiting := make(chan error, 1)
	go func() { waiting <- fx.tab.Do(deadline(t), "", ok) }()
	fx.b.Disconnected("connection reset; not resumed within 30s (12 tries, the last: connection refused)")
	for _, ch := range []chan error{inFlight, waiting} {
		err := <-ch
		require.ErrorIs(t, err, tabstate.ErrBrowserGone)
		assert.Contains(t, err.Error(), "not resumed")
	}
}

// After a resume the tab learns its URL again: a navigation during the
// gap, whose events were lost, shows in its state.
func TestResumeRelearnsURL(t *testing.T) {
	t.Parallel()
	const moved = "http://127.0.0.1:1/moved"
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	fx.b.Dropped("connection reset")
	answer(fx.f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": target, "type": "page", "url": moved}})
	answer(fx.f, "Page.getNavigationHistory", map[string]any{"currentIndex": 1, "entries": []any{
		map[string]any{"url": pageURL}, map[string]any{"url": moved}}})
	fx.f.Handle("Runtime.evaluate", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Result: map[string]any{"result": map[string]any{"type": "string", "value": "complete"}}}
	})
	fx.b.Resumed(time.Millisecond)
	s, err := fx.tab.Wait(deadline(t), func(s tabstate.State) bool { return s.URL == moved })
	require.NoError(t, err)
	assert.True(t, s.Committed)
	assert.True(t, s.Loaded)
}

// The heartbeat asks nothing while the connection resumes, and a
// heartbeat the drop cut is no silence.
func TestHeartbeatWhileResuming(t *testing.T) {
	t.Parallel()
	fx := setup(t, enginetest.EventsFirst, engine.Config{Heartbeat: 10 * time.Millisecond})
	fx.b.Dropped("connection reset")
	before := fx.f.Count("Browser.getVersion")
	time.Sleep(100 * time.Millisecond) // ten beats, were it beating
	assert.Equal(t, before, fx.f.Count("Browser.getVersion"), "beats while resuming")
	assert.False(t, fx.tab.State().BrowserGone)
	fx.b.Resumed(time.Millisecond)
	require.NoError(t, fx.tab.Do(deadline(t), "", ok))
}
