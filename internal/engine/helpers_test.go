package engine_test

import (
	"context"
	"encoding/json"
	"github.com/tabguard/tabguard/internal/testctx"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

const (
	pageURL = "http://127.0.0.1:1/page"
	target  = "T1"
	sess    = "S1"
)

// lateGrace is the EventGrace of a test whose explaining event trails the
// reply by a timer's few milliseconds: on a loaded machine the timer may
// fire well past Chrome's 100 ms, and the event does come, so the wait
// ends with it.
const lateGrace = 5 * time.Second

// orders are both orders Chrome's replies and events reach a driver in.
var orders = []enginetest.Order{enginetest.EventsFirst, enginetest.ReplyFirst}

// fixture is a Browser over the fake driver, with one watched tab on a
// loaded page.
type fixture struct {
	f   *enginetest.Fake
	b   *engine.Browser
	tab *engine.Tab
}

// setup starts a fixture for t; cfg's zero fields are the defaults.
func setup(t testing.TB, order enginetest.Order, cfg engine.Config) *fixture {
	t.Helper()
	return setupWith(t, order, cfg, pageURL, nil)
}

// setupWith is setup with the navigation history's one entry at history
// (the target's URL is pageURL) and handlers answering their methods
// instead of the defaults.
func setupWith(t testing.TB, order enginetest.Order, cfg engine.Config, history string, handlers map[string]enginetest.Handler) *fixture {
	t.Helper()
	return startOn(t, newFake(t, order, history, handlers), cfg)
}

// newFake is the fake browser of setupWith, not yet started.
func newFake(t testing.TB, order enginetest.Order, history string, handlers map[string]enginetest.Handler) *enginetest.Fake {
	t.Helper()
	f := enginetest.New(order)
	t.Cleanup(f.Close)
	answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{
		map[string]any{"targetId": target, "type": "page", "url": pageURL, "title": "page"}}})
	answer(f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": target, "type": "page", "url": pageURL}})
	answer(f, "Page.getNavigationHistory", map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"url": history}}})
	f.Handle("Runtime.evaluate", evaluate(nil))
	answer(f, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"identifier": "1"})
	for method, h := range handlers {
		f.Handle(method, h)
	}
	return f
}

// startOn starts a Browser with cfg on f and watches its tab.
func startOn(t testing.TB, f *enginetest.Fake, cfg engine.Config) *fixture {
	t.Helper()
	b := engine.NewBrowser(f.Driver(), cfg)
	f.Attach(b)
	t.Cleanup(b.Close)
	ctx := deadline(t)
	require.NoError(t, b.Start(ctx))
	tab, err := b.Watch(engine.TabHandle{Session: f.Session(sess), TargetID: target, SessionID: sess, Life: context.Background()})
	require.NoError(t, err)
	t.Cleanup(tab.Close)
	return &fixture{f: f, b: b, tab: tab}
}

// deadline is a context that ends before the test's own deadline would,
// with no deadline of its own (testctx.Within): a call under it is bounded
// by the eval timeout.
func deadline(t testing.TB) context.Context {
	return testctx.Within(t, context.Background(), 10*time.Second)
}

// answer makes method answer result.
func answer(f *enginetest.Fake, method string, result any) {
	f.Handle(method, func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Result: result} })
}

// evaluate answers Runtime.evaluate: the start probe with a loaded page,
// anything else with other, or with the value true when other is nil.
func evaluate(other enginetest.Handler) enginetest.Handler {
	return func(s string, params json.RawMessage) enginetest.Reply {
		var p struct{ Expression string }
		_ = json.Unmarshal(params, &p)
		if strings.Contains(p.Expression, "document.readyState") {
			return enginetest.Reply{Result: map[string]any{"result": map[string]any{"type": "object", "value": []string{"complete", pageURL}}}}
		}
		if other != nil {
			return other(s, params)
		}
		return enginetest.Reply{Result: map[string]any{"result": map[string]any{"type": "boolean", "value": true}}}
	}
}

// crash is what Chrome sends when the tab's renderer dies: on its session,
// then on the browser's.
func crash(status string) []enginetest.Event {
	return []enginetest.Event{
		enginetest.Page(sess, tabstate.TargetCrashed{}),
		func(b *engine.Browser) { b.TargetCrashed(target, status) },
	}
}

// commit is what Chrome sends for a main-frame navigation that commits.
func commit(loader, url string) []enginetest.Event {
	return []enginetest.Event{
		enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: loader, URL: url}),
		enginetest.Page(sess, tabstate.FrameNavigated{FrameID: target, LoaderID: loader, URL: url}),
	}
}

// ok is a call that answers at once.
func ok(context.Context) error { return nil }

// hang is a call that answers only when its context ends.
func hang(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}
