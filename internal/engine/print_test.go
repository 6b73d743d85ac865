package engine_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
)

// replacing is a tab watched, over the fake, while its document is being
// replaced: the target has the new URL, the history only about:blank, so
// Watch returns without waiting for the renderer. printCall answers the
// tab's print call.
func replacing(t *testing.T, cfg engine.Config, printCall enginetest.Handler) *engine.Tab {
	t.Helper()
	fx := setupWith(t, enginetest.EventsFirst, cfg, "about:blank", map[string]enginetest.Handler{"Page.addScriptToEvaluateOnNewDocument": printCall})
	require.False(t, fx.tab.State().Committed, "the start found the document being replaced")
	return fx.tab
}

// A call that runs in the page, made at once after a Watch that did not
// wait for the renderer, goes after the answer to the print call: Chrome
// runs a tab's commands in order, and one sent before would run where
// print is still Chrome's.
func TestPageCallAfterPrintCall(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	var answered atomic.Bool
	tab := replacing(t, engine.Config{EventGrace: time.Minute}, func(string, json.RawMessage) enginetest.Reply {
		<-release
		answered.Store(true)
		return enginetest.Reply{Result: map[string]any{"identifier": "1"}}
	})
	// A call sent without waiting would run before this.
	time.AfterFunc(50*time.Millisecond, open)
	var after bool
	require.NoError(t, tab.Do(deadline(t), "eval", func(context.Context) error {
		after = answered.Load()
		return nil
	}))
	assert.True(t, after, "the page call ran before the print call answered")
}

// A print call the renderer holds holds a page call for the event grace
// only: a program's call that needs no renderer is not held to its
// deadline.
func TestPageCallNotHeldByPrintCall(t *testing.T) {
	tab := replacing(t, engine.Config{EventGrace: time.Millisecond, EvalTimeout: time.Minute}, func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Hang: true}
	})
	ran := 0
	require.NoError(t, tab.Do(deadline(t), "eval", func(context.Context) error {
		ran++
		return nil
	}))
	assert.Equal(t, 1, ran)
}
