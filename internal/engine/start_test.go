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
)

// TestWatchAsFirstDocumentCommits holds that a tab watched while its first
// document commits, whose commit was told before the watcher listened,
// learns the commit from the page's answer: the browser side then reads
// "" for the target's URL and "Not attached to an active page" for the
// history (measured on Chromium 156), and no event follows. Without it
// the tab would read as in its first load for good.
func TestWatchAsFirstDocumentCommits(t *testing.T) {
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{}})
	answer(f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": target, "type": "page", "url": ""}})
	f.Handle("Page.getNavigationHistory", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "Not attached to an active page"}}
	})
	f.Handle("Runtime.evaluate", evaluate(nil)) // the page answers: complete, at pageURL
	b := engine.NewBrowser(f.Driver(), engine.Config{})
	f.Attach(b)
	t.Cleanup(b.Close)
	require.NoError(t, b.Start(deadline(t)))
	tab, err := b.Watch(engine.TabHandle{Session: f.Session(sess), TargetID: target, SessionID: sess, Life: context.Background()})
	require.NoError(t, err)
	t.Cleanup(tab.Close)
	ctx := deadline(t)
	for s := tab.State(); !s.Loaded && ctx.Err() == nil; s = tab.State() {
		time.Sleep(time.Millisecond)
	}
	s := tab.State()
	assert.True(t, s.Committed, "the page's answer is its commit")
	assert.True(t, s.Loaded)
	assert.Equal(t, pageURL, s.URL)
}

// TestStartBoundsEachCall holds that Start bounds each of its calls, not
// all of them together: a loaded browser that takes 400 ms to answer each
// of Start's calls (1.6 s in all, over four rounds) still starts, and one
// that stops answering fails Start.
func TestStartBoundsEachCall(t *testing.T) {
	slow := func(result any) enginetest.Handler {
		return func(string, json.RawMessage) enginetest.Reply {
			time.Sleep(400 * time.Millisecond)
			return enginetest.Reply{Result: result}
		}
	}
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	for _, m := range []string{"Target.setDiscoverTargets", "Browser.setDownloadBehavior", "Browser.setPermission"} {
		f.Handle(m, slow(struct{}{}))
	}
	f.Handle("Target.getTargets", slow(map[string]any{"targetInfos": []any{}}))
	b := engine.NewBrowser(f.Driver(), engine.Config{DiscoverTargets: true})
	f.Attach(b)
	t.Cleanup(b.Close)
	require.NoError(t, b.Start(deadline(t)))

	f = enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	f.Handle("Target.getTargets", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} })
	b = engine.NewBrowser(f.Driver(), engine.Config{})
	f.Attach(b)
	t.Cleanup(b.Close)
	assert.ErrorIs(t, b.Start(deadline(t)), context.DeadlineExceeded)
}

// TestStartReportsNoTabOpenAlready holds that a tab open before the
// Browser started is listed, not reported as opened: Chrome sends a
// targetCreated for each such tab as target discovery begins, which may
// reach the Browser before its list does.
func TestStartReportsNoTabOpenAlready(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			f := enginetest.New(order)
			t.Cleanup(f.Close)
			info := engine.TargetInfo{TargetID: target, Type: "page", URL: pageURL, Title: "page", Attached: true}
			f.Handle("Target.setDiscoverTargets", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: struct{}{}, Events: []enginetest.Event{func(b *engine.Browser) { b.TargetCreated(info) }}}
			})
			answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{
				map[string]any{"targetId": target, "type": "page", "url": pageURL, "title": "page", "attached": true}}})
			changes := make(chan engine.Change, 4)
			b := engine.NewBrowser(f.Driver(), engine.Config{DiscoverTargets: true,
				Sink: engine.Chan[engine.Change]{C: changes, Convert: func(c engine.Change) engine.Change { return c }}})
			f.Attach(b)
			t.Cleanup(b.Close)
			require.NoError(t, b.Start(deadline(t)))
			f.Push(func(b *engine.Browser) { b.TargetInfoChanged(info) })
			f.Push(func(b *engine.Browser) {
				b.TargetCreated(engine.TargetInfo{TargetID: "T2", Type: "page", URL: pageURL})
			})
			require.Len(t, b.Tabs(), 2)
			c := <-changes
			assert.Equal(t, engine.TabOpened, c.Kind)
			assert.Equal(t, "T2", c.Tab.TargetID, "the one change is the tab opened since")
		})
	}
}
