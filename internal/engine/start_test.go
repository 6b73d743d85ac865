package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
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

// TestStartBoundedByCaller holds that Start bounds its calls by the
// caller's context and the eval timeout, never by a second of its own: a
// loaded browser that takes 400 ms to answer each of Start's calls still
// starts, in two rounds (the target events, then the list and every policy
// together); one that does not answer a call fails Start with a
// TimeoutError that names the call, and undoes the policies it sent.
func TestStartBoundedByCaller(t *testing.T) {
	var inFlight, most atomic.Int32
	slow := func(result any) enginetest.Handler {
		return func(string, json.RawMessage) enginetest.Reply {
			n := inFlight.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(400 * time.Millisecond)
			inFlight.Add(-1)
			return enginetest.Reply{Result: result}
		}
	}
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	for _, m := range []string{"Target.setDiscoverTargets", "Browser.setDownloadBehavior", "Browser.setPermission"} {
		f.Handle(m, slow(struct{}{}))
	}
	f.Handle("Target.getTargets", slow(map[string]any{"targetInfos": []any{}}))
	f.Handle("Target.getBrowserContexts", slow(map[string]any{"browserContextIds": []any{}}))
	b := engine.NewBrowser(f.Driver(), engine.Config{DiscoverTargets: true,
		Permissions: []tabstate.PermissionGrant{{Origin: "http://127.0.0.1:1", Permissions: []string{"geolocation"}}}})
	f.Attach(b)
	t.Cleanup(b.Close)
	require.NoError(t, b.Start(deadline(t)))
	sent := len(f.Calls())
	assert.Equal(t, int32(sent-1), most.Load(), "all but the target events go out together")

	tests := []struct {
		name  string
		hang  func(method string, params json.RawMessage) bool
		cause tabstate.TimeoutCause
		doing string
	}{
		{"one call unanswered", func(m string, p json.RawMessage) bool {
			return m == "Browser.setPermission" && strings.Contains(string(p), `"storage-access"`)
		}, tabstate.TimeoutUnknown, "Browser.setPermission storage-access did not answer, though the browser answered"},
		{"nothing answered", func(string, json.RawMessage) bool { return true },
			tabstate.TimeoutSilent, "did not answer, nor did any other call of the start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := enginetest.New(enginetest.EventsFirst)
			t.Cleanup(f.Close)
			for _, m := range []string{"Target.getTargets", "Target.getBrowserContexts", "Browser.setDownloadBehavior", "Browser.setPermission"} {
				f.Handle(m, func(_ string, p json.RawMessage) enginetest.Reply {
					if tt.hang(m, p) {
						return enginetest.Reply{Hang: true}
					}
					return enginetest.Reply{Result: map[string]any{"targetInfos": []any{}}}
				})
			}
			b := engine.NewBrowser(f.Driver(), engine.Config{EvalTimeout: 300 * time.Millisecond})
			f.Attach(b)
			err := b.Start(deadline(t))
			b.Close() // waits for the undo
			var te *tabstate.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.ErrorIs(t, err, tabstate.ErrEvalTimeout)
			assert.Equal(t, "watch browser", te.Op)
			assert.Equal(t, tt.cause, te.Cause)
			assert.Contains(t, te.Doing, tt.doing)
			assert.Contains(t, te.Advice, "Options.EvalTimeout")
			assert.Equal(t, 1, f.Count("Browser.resetPermissions"), "the permissions sent are undone")
			var undone bool
			for _, c := range f.Calls() {
				undone = undone || c.Method == "Browser.setDownloadBehavior" && strings.Contains(string(c.Params), `"default"`)
			}
			assert.True(t, undone, "the download policy sent is undone")
		})
	}
}

// TestStartEndsWithCaller holds that the caller's context bounds Start
// below the eval timeout: its deadline gives the start's TimeoutError,
// with the limit the caller gave.
func TestStartEndsWithCaller(t *testing.T) {
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	f.Handle("Target.getTargets", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} })
	b := engine.NewBrowser(f.Driver(), engine.Config{EvalTimeout: time.Hour})
	f.Attach(b)
	t.Cleanup(b.Close)
	ctx, cancel := context.WithTimeout(deadline(t), 200*time.Millisecond)
	defer cancel()
	err := b.Start(ctx)
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.LessOrEqual(t, te.Limit, 200*time.Millisecond)
	assert.Contains(t, te.Doing, "Target.getTargets did not answer")
}

// TestCloseDoesNotWaitForHandBack holds that a Tab's Close returns while
// Chrome has not answered the hand-back, which goes on in the background
// and whose failure is traced; and that the Browser's Close ends a
// hand-back Chrome never answers (a busy or hung renderer holds Page
// commands) rather than wait for it, whatever the eval timeout.
func TestCloseDoesNotWaitForHandBack(t *testing.T) {
	failed := make(chan tabtrace.HandBack, 4)
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: time.Hour, Trace: &tabtrace.Trace{
		HandBackFailed: func(h tabtrace.HandBack) { failed <- h }}})
	release := make(chan struct{})
	fx.f.Handle("Page.setInterceptFileChooserDialog", func(_ string, p json.RawMessage) enginetest.Reply {
		if strings.Contains(string(p), "false") {
			<-release
			return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "Not attached to an active page"}}
		}
		return enginetest.Reply{Result: struct{}{}}
	})
	fx.f.Handle("Page.removeScriptToEvaluateOnNewDocument", func(string, json.RawMessage) enginetest.Reply {
		return enginetest.Reply{Hang: true}
	})
	fx.tab.Close() // returns with the hand-back unanswered
	close(release)
	select {
	case h := <-failed:
		assert.Equal(t, "Page.setInterceptFileChooserDialog", h.Method)
		assert.Equal(t, target, h.TargetID)
	case <-deadline(t).Done():
		t.Fatal("the failed hand-back was not traced")
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		fx.b.Close()
	}()
	select {
	case <-closed:
	case <-deadline(t).Done():
		t.Fatal("Browser.Close waits for a hand-back Chrome does not answer")
	}
	assert.Equal(t, 1, fx.f.Count("Page.removeScriptToEvaluateOnNewDocument"), "sent, and not awaited")
	assert.Empty(t, failed, "a hand-back Close ended is no failure")
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

// TestWatchTimeoutNamesTheCall holds that a Watch whose start cannot
// finish names the call that did not answer, within the handle's Start
// context and the eval timeout.
func TestWatchTimeoutNamesTheCall(t *testing.T) {
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{}})
	answer(f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": target, "type": "page", "url": pageURL}})
	f.Handle("Page.getNavigationHistory", func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} })
	f.Handle("Runtime.evaluate", evaluate(nil))
	b := engine.NewBrowser(f.Driver(), engine.Config{EvalTimeout: time.Hour})
	f.Attach(b)
	t.Cleanup(b.Close)
	require.NoError(t, b.Start(deadline(t)))
	start, cancel := context.WithTimeout(deadline(t), 200*time.Millisecond)
	defer cancel()
	_, err := b.Watch(engine.TabHandle{Session: f.Session(sess), TargetID: target, SessionID: sess,
		Life: context.Background(), Start: start})
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "watch tab", te.Op)
	assert.Contains(t, te.Doing, "Page.getNavigationHistory did not answer, though the browser answered")
}
