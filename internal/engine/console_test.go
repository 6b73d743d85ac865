package engine_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// logged is the Runtime.consoleAPICalled of console.log(text).
func logged(text string) enginetest.Event {
	return enginetest.Page(sess, tabstate.ConsoleAPICalled{Type: "log", URL: pageURL, LineNumber: 2,
		Args: []tabstate.RemoteValue{{Type: "string", Value: []byte(strconv.Quote(text))}}})
}

// texts are the texts of a tab's console.
func texts(tab *engine.Tab) []string {
	var out []string
	for _, m := range tab.Console().Messages {
		out = append(out, m.Text)
	}
	return out
}

// TestConsoleInOrder holds that a tab keeps its console calls and uncaught
// exceptions in the order they came, as lines, and that they change
// nothing else of the tab.
func TestConsoleInOrder(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	before := fx.tab.State()
	fx.f.Push(logged("one"),
		enginetest.Page(sess, tabstate.ExceptionThrown{Text: "Uncaught", URL: pageURL, LineNumber: 4, Timestamp: 1e12,
			Exception: &tabstate.RemoteValue{Type: "object", Subtype: "error", Description: "Error: boom"}}),
		logged("two"))
	got := fx.tab.Console()
	require.Len(t, got.Messages, 3)
	assert.Equal(t, []string{"one", "Uncaught Error: boom", "two"}, texts(fx.tab))
	assert.Equal(t, tabstate.ConsoleMessage{Type: "exception", Text: "Uncaught Error: boom", URL: pageURL, Line: 5,
		Time: time.UnixMilli(1e12)}, got.Messages[1])
	assert.Equal(t, "log", got.Messages[0].Type)
	assert.Zero(t, got.Dropped)
	assert.Equal(t, before, fx.tab.State())
	require.NoError(t, fx.tab.Do(deadline(t), "", ok))
}

// TestConsoleBounds holds that a tab keeps its last 200 messages and
// 64 KiB of their text, dropping the oldest first and counting them.
func TestConsoleBounds(t *testing.T) {
	t.Run("messages", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		for i := range 250 {
			fx.f.Push(logged(strconv.Itoa(i)))
		}
		got := fx.tab.Console()
		require.Len(t, got.Messages, 200)
		assert.Equal(t, 50, got.Dropped)
		assert.Equal(t, "50", got.Messages[0].Text)
		assert.Equal(t, "249", got.Messages[199].Text)
	})
	t.Run("bytes", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		long := strings.Repeat("é", 2000) // 4000 bytes: cut at 1 KiB
		for i := range 100 {
			fx.f.Push(logged(strconv.Itoa(i) + long))
		}
		got := fx.tab.Console()
		size := 0
		for _, m := range got.Messages {
			assert.LessOrEqual(t, len(m.Text), 1024+len("… (+9999 bytes)"))
			size += len(m.Text) + len(m.URL)
		}
		assert.LessOrEqual(t, size, 64<<10)
		assert.Greater(t, size, 60<<10, "the bound is filled, not undershot")
		assert.Equal(t, 100, len(got.Messages)+got.Dropped)
		assert.True(t, strings.HasPrefix(got.Messages[len(got.Messages)-1].Text, "99é"), "the last message is kept")
	})
	t.Run("one message larger than the bound's share", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		fx.f.Push(logged(strings.Repeat("x", 1<<20)))
		got := fx.tab.Console()
		require.Len(t, got.Messages, 1)
		assert.Less(t, len(got.Messages[0].Text), 2<<10)
	})
}

// TestConsoleClearedOnCommit holds that a document the main frame
// commits starts an empty console, and that an iframe's document, a
// same-document navigation and a load do not.
func TestConsoleClearedOnCommit(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	for i := range 210 {
		fx.f.Push(logged(strconv.Itoa(i)))
	}
	fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: "F1", ParentID: target}),
		enginetest.Page(sess, tabstate.FrameNavigated{FrameID: "F1", ParentID: target, LoaderID: "LF", URL: pageURL + "/frame"}),
		enginetest.Page(sess, tabstate.NavigatedWithinDocument{FrameID: target, URL: pageURL + "#here"}),
		enginetest.Page(sess, tabstate.LoadFired{}))
	got := fx.tab.Console()
	assert.Len(t, got.Messages, 200)
	assert.Equal(t, 10, got.Dropped)

	fx.f.Push(enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "L2", URL: pageURL + "/next", Type: "differentDocument"}),
		enginetest.Page(sess, tabstate.FrameNavigated{FrameID: target, LoaderID: "L2", URL: pageURL + "/next"}))
	assert.Equal(t, tabstate.ConsoleLog{}, fx.tab.Console())
	fx.f.Push(logged("new document"))
	assert.Equal(t, []string{"new document"}, texts(fx.tab))
}

// TestConsoleInTimeout holds that a call that runs out of time carries
// the last five messages, oldest first, and a call on a silent console
// none.
func TestConsoleInTimeout(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	busyScript(fx)
	err := fx.tab.Do(deadline(t), "", hang)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Nil(t, te.Console)

	for i := range 7 {
		fx.f.Push(logged("line " + strconv.Itoa(i)))
	}
	err = fx.tab.Do(deadline(t), "", hang)
	require.ErrorAs(t, err, &te)
	require.Len(t, te.Console, 5)
	assert.Equal(t, "line 2", te.Console[0].Text)
	assert.Equal(t, "line 6", te.Console[4].Text)
	assert.NotContains(t, te.Error(), "line 6", "the message stays as it is")
}

// TestConsoleInRefusal holds that a refusal carries the last messages
// too: of a call a crash cut short, of one refused up front, and of one
// whose document went away.
func TestConsoleInRefusal(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 5 * time.Second})
	gone := fx.tab.Do(deadline(t), "", func(context.Context) error { return tabstate.ErrNavigated })
	var be *tabstate.BlockedError
	require.ErrorAs(t, gone, &be)
	assert.Nil(t, be.Console, "a silent console")

	fx.f.Push(logged("before"), logged("the crash"))
	gone = fx.tab.Do(deadline(t), "", func(context.Context) error { return tabstate.ErrNavigated })
	cut := fx.tab.Do(deadline(t), "", func(ctx context.Context) error {
		fx.f.Push(crash("crashed")...)
		return hang(ctx)
	})
	refused := fx.tab.Do(deadline(t), "", ok)
	for _, c := range []struct{ err, reason error }{{gone, tabstate.ErrNavigated}, {cut, tabstate.ErrTabCrashed}, {refused, tabstate.ErrTabCrashed}} {
		err := c.err
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, c.reason)
		require.Len(t, be.Console, 2)
		assert.Equal(t, []string{"before", "the crash"}, []string{be.Console[0].Text, be.Console[1].Text})
		assert.NotContains(t, be.Error(), "the crash", "the message stays as it is")
	}
}

// TestConsoleEnable holds that Config.Console enables the Runtime domain
// once as the tab is watched, and that without it nothing is sent.
func TestConsoleEnable(t *testing.T) {
	for _, tt := range []struct {
		name    string
		console bool
		want    int
	}{{"off", false, 0}, {"on", true, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			fx := setup(t, enginetest.EventsFirst, engine.Config{Console: tt.console})
			calls := len(fx.f.Calls())
			require.NoError(t, fx.tab.Do(deadline(t), "", ok))
			assert.Equal(t, calls, len(fx.f.Calls()), "a healthy call sends nothing")
			assert.Equal(t, tt.want, fx.f.Count("Runtime.enable"))
			for _, c := range fx.f.Calls() {
				if c.Method == "Runtime.enable" {
					assert.Equal(t, sess, c.Session)
				}
			}
		})
	}
}
