package tabguard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// lifecycleTimeout is the EvalTimeout of the lifecycle tests: long enough
// for a healthy load on a busy machine, short for the never-answering one.
const lifecycleTimeout = 3 * time.Second

// lifecycleCall is Navigate or Reload, seen the same way by the table below.
type lifecycleCall struct {
	name string
	// prepare brings the tab to where the call goes to url; call makes it.
	prepare func(t *testing.T, f *fixture, url string)
	call    func(ctx context.Context, f *fixture, url string) error
}

func lifecycleCalls() []lifecycleCall {
	return []lifecycleCall{
		{
			name:    "Navigate",
			prepare: func(t *testing.T, f *fixture, url string) {},
			call:    func(ctx context.Context, f *fixture, url string) error { return f.w.Navigate(ctx, url) },
		},
		{
			// Reload reloads what the tab holds: it is brought to url first
			// with a server that answers once, so the reload meets the fault.
			name: "Reload",
			prepare: func(t *testing.T, f *fixture, url string) {
				require.NoError(t, navigate(t, f.page, url))
				// rod's Navigate may return before the new document
				// replaces the old one: a script run then, such as a
				// beforeunload handler, would go on the old page.
				eventually(t, "the tab to load "+url, func() bool {
					res, err := f.page.Context(testbrowser.Context(t, 5*time.Second)).Eval(`() => location.href + " " + document.readyState`)
					return err == nil && res.Value.Str() == url+" complete" && f.w.State().URL == url
				})
			},
			call: func(ctx context.Context, f *fixture, url string) error { return f.w.Reload(ctx) },
		},
	}
}

// flaky serves a page on its first request and then fails as fault says,
// so a tab can load it and then meet the fault on a reload.
func flaky(t *testing.T, fault func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	var served bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		if !served {
			served = true
			fmt.Fprint(w, `<!doctype html><title>first</title><p>first`)
			return
		}
		fault(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// stallingServer serves a page once, then holds every request until the
// browser gives up or the test ends.
func stallingServer(t *testing.T) *httptest.Server {
	quit := stalling(t)
	srv := flaky(t, func(w http.ResponseWriter, r *http.Request) { stall(r, quit) })
	t.Cleanup(func() { close(quit) })
	return srv
}

func TestLifecycleCalls(t *testing.T) {
	t.Parallel()
	for _, lc := range lifecycleCalls() {
		t.Run(lc.name, func(t *testing.T) {
			t.Parallel()
			t.Run("healthy page", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, nil)
				url := f.srv.URL + "/?healthy"
				lc.prepare(t, f, url)
				require.NoError(t, lc.call(testbrowser.Context(t, 10*time.Second), f, url))
				s := f.w.State() // committed before the call returned: no wait
				assert.True(t, s.Committed, "state: %+v", s)
				assert.Equal(t, url, s.URL)
				res, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
				require.NoError(t, err)
				assert.Equal(t, url, res.Value.Str())
			})
			t.Run("dead URL", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, nil)
				var url string
				if lc.name == "Navigate" {
					url = testbrowser.DeadURL(t)
				} else {
					url = flaky(t, func(w http.ResponseWriter, r *http.Request) {
						if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
							_ = c.Close() // drop the connection: net::ERR_EMPTY_RESPONSE
						}
					}).URL + "/"
				}
				lc.prepare(t, f, url)
				err := lc.call(testbrowser.Context(t, 10*time.Second), f, url)
				require.ErrorIs(t, err, tabguard.ErrNoDocument)
				assert.Regexp(t, `^tab has no document: net::ERR_[A-Z_]+ loading http://127\.0\.0\.1:\d+/: navigate again \(Watcher\.Navigate\)$`, err.Error())
				assert.ErrorIs(t, f.w.Blocked(testbrowser.Context(t, 5*time.Second)), tabguard.ErrNoDocument)
			})
			t.Run("unresolvable host", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, nil)
				const url = "http://nonexistent.invalid/"
				if lc.name == "Reload" {
					// Reload reloads the URL the error page stands in for.
					require.Error(t, navigate(t, f.page, url))
				}
				err := lc.call(testbrowser.Context(t, 10*time.Second), f, url)
				require.ErrorIs(t, err, tabguard.ErrNoDocument)
				assert.Equal(t, "tab has no document: net::ERR_NAME_NOT_RESOLVED loading http://nonexistent.invalid/: navigate again (Watcher.Navigate)", err.Error())
			})
			t.Run("never-answering server", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, &tabguard.Options{EvalTimeout: 600 * time.Millisecond})
				url := f.srv.URL + "/stall"
				if lc.name == "Reload" {
					url = stallingServer(t).URL + "/"
				}
				lc.prepare(t, f, url)
				before := f.w.State().URL
				start := time.Now()
				err := lc.call(testbrowser.Context(t, 10*time.Second), f, url)
				require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				var te *tabguard.TimeoutError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, tabguard.TimeoutLoading, te.Cause)
				t.Logf("answered in %v", time.Since(start))
				assert.Contains(t, err.Error(), "timed out after 600ms (tab still loading "+url+": loading stopped)")
				// The load was stopped: the tab answers from the page it had.
				res, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
				require.NoError(t, err)
				assert.Equal(t, before, res.Value.Str())
			})
			t.Run("renderer killed during the load", func(t *testing.T) {
				t.Parallel()
				// Page.crash would wait for the pending navigation, as every
				// renderer command does, so the renderer is killed instead,
				// in a browser of the test's own.
				f := &fixture{srv: serve(t), b: dedicated(t)}
				f.page = testbrowser.NewPage(t, f.b)
				require.NoError(t, navigate(t, f.page, f.srv.URL))
				f.w = watch(t, f.page, &tabguard.Options{EvalTimeout: 20 * time.Second})
				url := f.srv.URL + "/stall"
				if lc.name == "Reload" {
					url = stallingServer(t).URL + "/"
				}
				lc.prepare(t, f, url)
				done := make(chan error, 1)
				go func() { done <- lc.call(testbrowser.Context(t, 30*time.Second), f, url) }()
				eventually(t, "the load to start", func() bool { return f.w.State().URL == url })
				reported := crashReported(t, f)
				killRenderers(t, f.b)
				reported()
				start := time.Now()
				select {
				case err := <-done:
					require.ErrorIs(t, err, tabguard.ErrTabCrashed)
					assert.Equal(t, "tab renderer crashed (reason: killed): reload the tab (Watcher.Reload)", err.Error())
					t.Logf("answered %v after the crash", time.Since(start))
				case <-time.After(10 * time.Second):
					t.Fatal("the load did not return within 10s of the crash")
				}
			})
			t.Run("beforeunload dialog", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, nil)
				url := f.srv.URL + "/?next"
				lc.prepare(t, f, url)
				before := f.w.State().URL
				armBeforeUnload(t, f)
				err := lc.call(testbrowser.Context(t, 10*time.Second), f, url)
				require.ErrorIs(t, err, tabguard.ErrDialogOpen)
				assert.Contains(t, err.Error(), `tab has a JavaScript dialog open: beforeunload`)
				assert.Contains(t, err.Error(), `accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs`)
				// Dismissed, the dialog keeps the page, which answers at once.
				require.NoError(t, f.w.HandleDialog(testbrowser.Context(t, 10*time.Second), false, ""))
				res, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
				require.NoError(t, err, "eval after the dialog was dismissed")
				assert.Equal(t, before, res.Value.Str())
			})
			t.Run("beforeunload dialog under DialogAccept", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, &tabguard.Options{Dialogs: tabguard.DialogAccept})
				url := f.srv.URL + "/?next"
				lc.prepare(t, f, url)
				armBeforeUnload(t, f)
				require.NoError(t, lc.call(testbrowser.Context(t, 10*time.Second), f, url))
				assert.Equal(t, url, f.w.State().URL)
			})
			t.Run("closed tab", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, nil)
				_, err := proto.TargetCloseTarget{TargetID: f.page.TargetID}.Call(f.b.Context(testbrowser.Context(t, 5*time.Second)))
				require.NoError(t, err)
				f.waitBlocked(t, tabguard.ErrTabClosed)
				err = lc.call(testbrowser.Context(t, 10*time.Second), f, f.srv.URL)
				require.ErrorIs(t, err, tabguard.ErrTabClosed)
				assert.Equal(t, "tab is closed: open a new tab", err.Error())
			})
		})
	}
}

// newFixture opens a tab on the shared browser at a served page and watches it.
func newFixture(t *testing.T, opts *tabguard.Options) *fixture {
	t.Helper()
	if opts == nil {
		opts = &tabguard.Options{EvalTimeout: lifecycleTimeout}
	}
	f := &fixture{srv: serve(t), b: testbrowser.Shared(t)}
	f.page = loadedPage(t, f.srv)
	f.w = watch(t, f.page, opts)
	f.timeout = opts.EvalTimeout
	return f
}

// armBeforeUnload makes the page ask before it unloads. Chrome shows the
// dialog only for a page the user interacted with, so the handler is set
// by a script that counts as a user gesture.
func armBeforeUnload(t *testing.T, f *fixture) {
	t.Helper()
	_, err := proto.RuntimeEvaluate{
		Expression:  `window.onbeforeunload = e => { e.preventDefault(); e.returnValue = "" }`,
		UserGesture: true,
	}.Call(f.page.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
}

func TestHandleDialog(t *testing.T) {
	t.Parallel()
	ctx := func(t *testing.T) context.Context { return testbrowser.Context(t, 10*time.Second) }
	t.Run("no dialog open", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		start := time.Now()
		err := f.w.HandleDialog(ctx(t), true, "")
		require.ErrorIs(t, err, tabguard.ErrNoDialog)
		assert.Equal(t, "no JavaScript dialog is open", err.Error())
		t.Logf("answered in %v", time.Since(start))
	})
	t.Run("prompt answered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, &tabguard.Options{EvalTimeout: 20 * time.Second})
		wait := f.evalAsync(t, `() => prompt("your name?")`)
		f.waitBlocked(t, tabguard.ErrDialogOpen)
		require.NoError(t, f.w.HandleDialog(ctx(t), true, "tabguard"))
		got := wait(time.Now())
		require.ErrorIs(t, got.err, tabguard.ErrDialogOpen, "the eval that opened it was cut short")
		f.runJS(t, `setTimeout(() => window.answer = prompt("again?"), 0)`)
		f.waitBlocked(t, tabguard.ErrDialogOpen)
		require.NoError(t, f.w.HandleDialog(ctx(t), true, "tabguard"))
		res, err := f.w.Eval(ctx(t), `() => window.answer`)
		require.NoError(t, err)
		assert.Equal(t, "tabguard", res.Value.Str())
	})
	t.Run("confirm dismissed", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		f.runJS(t, `setTimeout(() => window.answer = confirm("sure?"), 0)`)
		f.waitBlocked(t, tabguard.ErrDialogOpen)
		require.NoError(t, f.w.HandleDialog(ctx(t), false, ""))
		res, err := f.w.Eval(ctx(t), `() => window.answer`)
		require.NoError(t, err)
		assert.Equal(t, false, res.Value.Bool())
		assert.ErrorIs(t, f.w.HandleDialog(ctx(t), true, ""), tabguard.ErrNoDialog)
	})
	t.Run("dialog opened before Watch", func(t *testing.T) {
		t.Parallel()
		page := loadedPage(t, serve(t))
		_, err := proto.RuntimeEvaluate{Expression: `setTimeout(() => alert("before"), 0)`}.Call(page.Context(ctx(t)))
		require.NoError(t, err)
		time.Sleep(200 * time.Millisecond)
		w := watch(t, page, &tabguard.Options{EvalTimeout: time.Second})
		require.NoError(t, w.HandleDialog(ctx(t), true, ""))
		res, err := w.Eval(ctx(t), `() => 1`)
		require.NoError(t, err)
		assert.Equal(t, 1, res.Value.Int())
	})
	t.Run("crashed tab", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		crash(t, f.page)
		f.waitBlocked(t, tabguard.ErrTabCrashed)
		assert.ErrorIs(t, f.w.HandleDialog(ctx(t), true, ""), tabguard.ErrNoDialog)
	})
	t.Run("closed tab", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		_, err := proto.TargetCloseTarget{TargetID: f.page.TargetID}.Call(f.b.Context(ctx(t)))
		require.NoError(t, err)
		f.waitBlocked(t, tabguard.ErrTabClosed)
		assert.ErrorIs(t, f.w.HandleDialog(ctx(t), true, ""), tabguard.ErrTabClosed)
	})
}

// A renderer that dies after a navigation committed but before its page
// loaded leaves Chrome's history at the entry before it, so Page.reload
// alone would bring that page back. Reload reloads the page the tab had.
// The trickling page holds the tab between commit and load for as long as
// the test needs, so two tabs at once show what five did.
func TestReloadAfterACrashMidLoad(t *testing.T) {
	t.Parallel()
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil)
			url := f.srv.URL + "/trickle"
			require.NoError(t, f.w.Navigate(testbrowser.Context(t, 10*time.Second), url))
			require.False(t, f.w.State().Loaded, "the page is still loading")
			crashTab(f.page)
			f.waitBlocked(t, tabguard.ErrTabCrashed)
			require.NoError(t, f.w.Reload(testbrowser.Context(t, 10*time.Second)))
			assert.Equal(t, url, f.w.State().URL)
			res, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
			require.NoError(t, err)
			assert.Equal(t, url, res.Value.Str())
		})
	}
}
