package engine_test

import (
	"context"
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
