package tabguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestWatcherEvalHealthy(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	w := watch(t, loadedPage(t, srv), nil)
	ctx := testbrowser.Context(t, 10*time.Second)

	s := w.State()
	assert.True(t, s.Committed, "state of a loaded tab: %+v", s)
	assert.Equal(t, srv.URL+"/", s.URL)
	require.NoError(t, w.Blocked(ctx))

	res, err := w.Eval(ctx, `(a, b) => a + b`, 40, 2)
	require.NoError(t, err)
	assert.Equal(t, 42, res.Value.Int())

	res, err = w.Eval(ctx, `async () => document.querySelector("p").textContent`)
	require.NoError(t, err)
	assert.Equal(t, "héllo", res.Value.Str())

	res, err = w.Eval(ctx, `(o) => o.list.length + o.name`, map[string]any{"list": []int{1, 2}, "name": "x"})
	require.NoError(t, err)
	assert.Equal(t, "2x", res.Value.Str())

	_, err = w.Eval(ctx, `() => { throw new Error("boom") }`)
	var evalErr *tabguard.EvalError
	require.ErrorAs(t, err, &evalErr)
	assert.Contains(t, err.Error(), "boom")
}

// TestWatcherEvalPromises holds that a result that is a promise, or any
// thenable, is awaited (by a second call: Chrome awaits nothing the first
// time), its rejection is the eval's exception, and a remote object's
// context awaits a promise made there.
func TestWatcherEvalPromises(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 10*time.Second)
	tests := []struct {
		name, js string
		want     any
	}{
		{"async", `async () => 40 + 2`, float64(42)},
		{"timer", `() => new Promise(r => setTimeout(() => r("late"), 20))`, "late"},
		{"thenable", `() => ({then(r) { r(7) }})`, float64(7)},
		{"object", `() => ({then: 1, n: 2})`, map[string]any{"then": float64(1), "n": float64(2)}},
		{"the marker's key, not from the watcher", `() => ({__tabguardPending: "x"})`, map[string]any{"__tabguardPending": "x"}},
		{"null", `() => null`, nil},
		{"a number, with a then on Number.prototype", `() => { Number.prototype.then = r => r(6); queueMicrotask(() => delete Number.prototype.then); return 5 }`, float64(5)},
		{"a page global named r", `() => { globalThis.r = 9; return r }`, float64(9)},
	}
	for _, tt := range tests {
		res, err := w.Eval(ctx, tt.js)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, res.Value.Val(), tt.name)
	}
	_, err := w.Eval(ctx, `() => Promise.reject(new Error("nope"))`)
	var evalErr *tabguard.EvalError
	require.ErrorAs(t, err, &evalErr)
	assert.Contains(t, err.Error(), "nope")

	el, err := page.Context(ctx).Element("p")
	require.NoError(t, err)
	res, err := w.Eval(ctx, `async (el) => el.textContent`, el.Object)
	require.NoError(t, err)
	assert.Equal(t, "héllo", res.Value.Str())
	res, err = w.Eval(ctx, `(el, n) => el.textContent.length + n`, el.Object, 2)
	require.NoError(t, err)
	assert.Equal(t, 7, res.Value.Int(), "no promise, with an argument")
}

func TestWatcherEvalRemoteObjectArg(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 10*time.Second)

	el, err := page.Context(ctx).Element("p")
	require.NoError(t, err)
	res, err := w.Eval(ctx, `(el, suffix) => el.textContent + suffix`, el.Object, "!")
	require.NoError(t, err)
	assert.Equal(t, "héllo!", res.Value.Str())
}

func TestWatcherEvalTimesOut(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, js, doing string }{
		{"promise never settles", `() => new Promise(() => {})`, "answers, but the eval's promise never settled"},
		{"infinite loop", `() => { while (true) {} }`, "busy running script on committed page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The probes ask the page in the last second (at most half the
			// timeout): under 2 s, a loaded machine can leave them too
			// little time for even the browser to answer, and the cause
			// reads as a silent connection.
			const timeout = 2 * time.Second
			w := watch(t, loadedPage(t, serve(t)), &tabguard.Options{EvalTimeout: timeout})
			start := time.Now()
			_, err := w.Eval(testbrowser.Context(t, 10*time.Second), tt.js)
			elapsed := time.Since(start)
			require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Contains(t, err.Error(), "eval timed out after 2s")
			assert.Contains(t, err.Error(), tt.doing)
			assert.GreaterOrEqual(t, elapsed, timeout)
		})
	}
}

func TestWatcherCrashIdleIsRefused(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	wire := newWire(t)
	page := testbrowser.NewPage(t, &testbrowser.Browser{Browser: wire.browser(t)})
	require.NoError(t, navigate(t, page, srv.URL))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
	w := watch(t, page, nil)

	crash(t, page)
	eventually(t, "crash to be seen", blockedBy(t, w, tabguard.ErrTabCrashed))
	// Inspector.targetCrashed may come first, without the status.
	eventually(t, "the crash status", func() bool { return w.State().CrashReason != "" })

	sent := wire.sentTo(string(page.SessionID))
	_, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	assert.Equal(t, sent, wire.sentTo(string(page.SessionID)), "a refusal must not touch the tab")
	var be *tabguard.BlockedError
	require.ErrorAs(t, err, &be)
	assert.ErrorIs(t, err, tabguard.ErrTabCrashed)
	assert.Equal(t, "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)", err.Error())
	assert.Equal(t, srv.URL+"/", be.URL)
	s := w.State()
	assert.True(t, s.Crashed)
	assert.Equal(t, "crashed", s.CrashReason)
}

func TestWatcherCrashInFlightFailsFast(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})

	done := make(chan error, 1)
	go func() {
		_, err := w.Eval(testbrowser.Context(t, 30*time.Second), `() => new Promise(r => setTimeout(r, 15000))`)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the eval reach the renderer
	crash(t, page)

	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrTabCrashed, "the crash ends the eval, 15 s before its promise would settle")
	case <-time.After(10 * time.Second):
		t.Fatal("in-flight eval still waiting 10s after the crash")
	}
}

func TestWatchAfterCrashStillReports(t *testing.T) {
	t.Parallel()
	for i := range 3 { // the crash must be seen every time, not by luck of timing
		page := loadedPage(t, serve(t))
		crash(t, page) // the crash is over before anyone watches

		w := watch(t, page, nil)
		err := w.Blocked(testbrowser.Context(t, 5*time.Second))
		require.ErrorIs(t, err, tabguard.ErrTabCrashed, "round %d", i)
		_, err = w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
		require.ErrorIs(t, err, tabguard.ErrTabCrashed, "round %d", i)
	}
}

func TestWatcherRecoversAfterCrash(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	recoveries := []struct {
		name    string
		recover func(t *testing.T, page *rod.Page)
	}{
		{"Page.reload", func(t *testing.T, page *rod.Page) {
			// rod's page.Reload runs JavaScript, which a crashed tab never answers.
			require.NoError(t, proto.PageReload{}.Call(page.Context(testbrowser.Context(t, 10*time.Second))))
		}},
		{"Navigate", func(t *testing.T, page *rod.Page) {
			require.NoError(t, navigate(t, page, srv.URL))
		}},
	}
	for _, tt := range recoveries {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page := loadedPage(t, srv)
			w := watch(t, page, nil)
			crash(t, page)
			eventually(t, "crash to be seen", blockedBy(t, w, tabguard.ErrTabCrashed))

			tt.recover(t, page)
			eventually(t, "recovery to be seen", func() bool { return w.Blocked(testbrowser.Context(t, 5*time.Second)) == nil })
			res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
			require.NoError(t, err)
			assert.Equal(t, srv.URL+"/", res.Value.Str())
			assert.False(t, w.State().Crashed)
		})
	}
}

func TestWatcherNoDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, wantErr string
		url           func(t testing.TB) string
	}{
		{"connection refused", "net::ERR_CONNECTION_REFUSED", testbrowser.DeadURL},
		{"unresolvable host", "net::ERR_NAME_NOT_RESOLVED", func(testing.TB) string { return "http://nonexistent.invalid/" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page := testbrowser.Page(t)
			w := watch(t, page, nil)
			url := tt.url(t)

			err := navigate(t, page, url)
			require.Error(t, err, "loading %s", url)
			eventually(t, "the load error", blockedBy(t, w, tabguard.ErrNoDocument))

			_, err = w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrNoDocument)
			assert.Equal(t, "tab has no document: "+tt.wantErr+" loading "+url+": navigate again (Watcher.Navigate)", err.Error())
			var be *tabguard.BlockedError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, url, be.URL)
			assert.Equal(t, tt.wantErr, be.Detail)
		})
	}
}

func TestWatchOnErrorPage(t *testing.T) {
	t.Parallel()
	page := testbrowser.Page(t)
	url := testbrowser.DeadURL(t)
	// The error page commits after Navigate returns; wait for it to stand in.
	// Runtime.evaluate names no execution context, so it reads whichever
	// document stands, where rod's page.Eval may hold a context of the old.
	// In full parallel runs of this package, Chrome 156 has left the tab at
	// about:blank for 20 s after the refused load (3 runs in about 12),
	// while other tests drove the same browser: the load is then made
	// again.
	errorPage := func() (string, bool) {
		res, err := proto.RuntimeEvaluate{Expression: "location.href", ReturnByValue: true}.Call(page.Context(testbrowser.Context(t, 2*time.Second)))
		if err != nil {
			return err.Error(), false
		}
		return res.Result.Value.Str(), res.Result.Value.Str() == "chrome-error://chromewebdata/"
	}
	var last string
	for attempt := 1; ; attempt++ {
		require.Error(t, navigate(t, page, url))
		deadline := time.Now().Add(5 * time.Second)
		ok := false
		for !ok && time.Now().Before(deadline) {
			last, ok = errorPage()
			if !ok {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if ok {
			break
		}
		require.Less(t, attempt, 4, "no error page after 4 refused loads; location.href read last: %s", last)
		t.Logf("no error page 5 s after refused load %d (location.href: %s): loading again", attempt, last)
	}

	w := watch(t, page, nil)
	err := w.Blocked(testbrowser.Context(t, 5*time.Second))
	require.ErrorIs(t, err, tabguard.ErrNoDocument)
	assert.Contains(t, err.Error(), url)
	assert.True(t, w.State().ErrorPage)
}

func TestWatcherCrashBeatsLoadError(t *testing.T) {
	t.Parallel()
	// A browser of its own: Chrome puts the error pages of a browser's tabs
	// in one renderer, and crashing it would crash every other test's error
	// page, as TestWatchOnErrorPage's.
	page := testbrowser.NewPage(t, dedicated(t))
	w := watch(t, page, nil)
	require.Error(t, navigate(t, page, testbrowser.DeadURL(t)))
	eventually(t, "the load error", blockedBy(t, w, tabguard.ErrNoDocument))

	crash(t, page)
	eventually(t, "the crash", blockedBy(t, w, tabguard.ErrTabCrashed))
	_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrTabCrashed)
	assert.NotErrorIs(t, err, tabguard.ErrNoDocument)
}

func TestWatcherFirstLoadIsNotRefused(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	page := testbrowser.Page(t)
	startStalledLoad(t, page, srv.URL+"/stall")

	const timeout = 500 * time.Millisecond
	w := watch(t, page, &tabguard.Options{EvalTimeout: timeout})
	assert.False(t, w.State().Committed)
	require.NoError(t, w.Blocked(testbrowser.Context(t, 5*time.Second)), "a first load must not be refused")

	_, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	assert.Contains(t, err.Error(), "eval timed out after 500ms (tab still loading "+srv.URL+"/stall")
}

func TestWatcherEvalNotHeldByRodLock(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	page := testbrowser.Page(t)
	w := watch(t, page, &tabguard.Options{EvalTimeout: 300 * time.Millisecond})
	startStalledLoad(t, page, srv.URL+"/stall")

	// A rod Eval on the loading tab holds rod's per-page lock while it waits.
	rodDone := make(chan struct{})
	rodCtx, stopRod := context.WithTimeout(context.Background(), time.Minute)
	defer stopRod()
	go func() {
		defer close(rodDone)
		_, _ = page.Context(rodCtx).Eval(`() => 1`)
	}()
	time.Sleep(100 * time.Millisecond)

	_, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	select {
	case <-rodDone:
		t.Fatal("rod's Eval ended first: the watcher's may have waited behind it")
	default: // rod's Eval still holds the lock: the watcher's did not wait for it
	}
	stopRod()
	<-rodDone
}

func TestWatcherTabClosed(t *testing.T) {
	t.Parallel()
	b := testbrowser.Shared(t)
	page := loadedPage(t, serve(t))
	w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})

	done := make(chan error, 1)
	go func() {
		_, err := w.Eval(testbrowser.Context(t, 30*time.Second), `() => new Promise(() => {})`)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_, err := proto.TargetCloseTarget{TargetID: page.TargetID}.Call(b.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)

	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrTabClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight eval on a closed tab still waiting after 5s")
	}
	eventually(t, "the close", blockedBy(t, w, tabguard.ErrTabClosed))
	_, err = w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrTabClosed)
	assert.Equal(t, "tab is closed: open a new tab", err.Error())

	_, err = tabguard.Watch(page, nil)
	require.ErrorIs(t, err, tabguard.ErrTabClosed)
}

func TestWatcherBrowserGone(t *testing.T) {
	t.Parallel()
	b, err := testbrowser.Launch()
	require.NoError(t, err)
	t.Cleanup(b.Close)
	page := testbrowser.NewPage(t, b)
	w := watch(t, page, nil)
	res, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.NoError(t, err)
	require.Equal(t, 1, res.Value.Int())

	b.Launcher.Kill()
	eventually(t, "the browser to be gone", func() bool {
		_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
		return errors.Is(err, tabguard.ErrBrowserGone)
	})
	assert.True(t, w.State().BrowserGone)
}

func TestWatcherBadInput(t *testing.T) {
	t.Parallel()
	_, err := tabguard.Watch(nil, nil)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	_, err = tabguard.Watch(&rod.Page{}, nil)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)

	w := watch(t, loadedPage(t, serve(t)), nil)
	ctx := testbrowser.Context(t, 5*time.Second)
	_, err = w.Eval(ctx, "  ; ")
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	_, err = w.Eval(ctx, `(f) => f`, func() {})
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	_, err = w.DOM(ctx, -1)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	//nolint:staticcheck // a nil context is the bad input under test
	_, err = w.Eval(nil, `() => 1`) //lint:ignore SA1012 bad input under test
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)

	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "Close twice")
	_, err = w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrWatcherClosed)
	require.ErrorIs(t, w.Blocked(ctx), tabguard.ErrWatcherClosed)
}
