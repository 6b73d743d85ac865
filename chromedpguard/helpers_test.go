package chromedpguard_test

import (
	"context"
	"fmt"
	"github.com/tabguard/tabguard/internal/testctx"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// dedicated launches a browser of the test's own, for faults that would
// take other tests' tabs with them, and ends it when t ends.
func dedicated(t *testing.T) context.Context {
	t.Helper()
	ctx, stop, err := launch()
	require.NoError(t, err, "start Chromium")
	t.Cleanup(stop)
	return ctx
}

// newTab opens a tab on the browser of browserCtx, with opts, and closes it
// when t ends.
func newTab(t *testing.T, browserCtx context.Context, opts ...chromedp.ContextOption) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx, opts...)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx), "open a tab")
	return ctx
}

// newWindow opens a new tab of browserCtx in a window of its own, as
// newTab opens one, and closes it when t ends. Headed rows share a
// browser, and a tab another row's tab sent to the background is hidden,
// where Chrome opens no file chooser and shows no prompt.
func newWindow(t *testing.T, browserCtx context.Context) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(browserCtx, 10*time.Second)
	defer cancel()
	window := true
	id, err := chromedp.CallBrowser(ctx, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: &window})
	require.NoError(t, err, "open a window")
	return newTab(t, browserCtx, chromedp.WithTargetID(id.TargetID))
}

// watch watches the tab of ctx and closes the watcher when t ends.
func watch(t *testing.T, ctx context.Context, opts *chromedpguard.Options) *chromedpguard.Watcher {
	t.Helper()
	w, err := chromedpguard.Watch(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// fixture is one test's tab: its browser, server, tab context and watcher.
type fixture struct {
	browser context.Context
	srv     *httptest.Server
	tab     context.Context
	w       *chromedpguard.Watcher

	timeout time.Duration // the watcher's EvalTimeout, where a test sets it
	home    string        // the browser user's home, where it is its own (headed)
}

// newFixture opens a tab on the shared browser (or browser, when not nil),
// loads path of a fresh server in it ("-" loads nothing) and watches it.
func newFixture(t *testing.T, browser context.Context, path string, opts *chromedpguard.Options) *fixture {
	t.Helper()
	if browser == nil {
		browser = sharedBrowser
	}
	f := &fixture{browser: browser, srv: serve(t)}
	f.tab = newTab(t, browser)
	f.w = watch(t, f.tab, opts)
	if path != "-" {
		require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL+path))
		_, err := f.w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
		require.NoError(t, err)
	}
	return f
}

// within returns a context that ends after d or when t ends, with no
// deadline of its own (testctx.Within): a watcher's call under it is
// bounded by the watcher's eval timeout.
func within(t testing.TB, d time.Duration) context.Context {
	return testctx.Within(t, context.Background(), d)
}

// tabWithin is within for chromedp calls: derived from the tab's context.
func (f *fixture) tabWithin(t testing.TB, d time.Duration) context.Context {
	return testctx.Within(t, f.tab, d)
}

// runJS evaluates expression on the tab with chromedp directly, bypassing
// the watcher, as the page itself or another client would.
func (f *fixture) runJS(t *testing.T, expression string) {
	t.Helper()
	_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), runtime.Evaluate,
		runtime.EvaluateParams{Expression: expression, UserGesture: ptr(true)})
	require.NoError(t, err)
}

// crash kills the tab's renderer and waits until the watcher has the
// crash's status. Chrome never answers Page.crash, so it gets a short
// context of its own.
func (f *fixture) crash(t *testing.T) {
	t.Helper()
	cctx, cancel := context.WithTimeout(f.tab, 300*time.Millisecond)
	defer cancel()
	_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{}) // no reply is the expected outcome
	eventually(t, "the crash", func() bool { return f.w.State().CrashReason != "" })
}

// evalAsync starts js on f's watcher and returns a func that waits for its
// outcome, timed from the moment that func is called with from, after
// letting the eval reach the renderer.
func (f *fixture) evalAsync(t *testing.T, js string) func(from time.Time) outcome {
	t.Helper()
	type answer struct {
		res *runtime.RemoteObject
		err error
		at  time.Time
	}
	done := make(chan answer, 1)
	go func() {
		res, err := f.w.Eval(within(t, 30*time.Second), js)
		done <- answer{res, err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond)
	return func(from time.Time) outcome {
		select {
		case a := <-done:
			return outcome{a.res, a.err, a.at.Sub(from)}
		case <-time.After(30 * time.Second):
			t.Fatal("eval still in flight after 30s")
			return outcome{}
		}
	}
}

// eventually polls cond every 10 ms until it holds or 20 s pass.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 20s waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serve serves the test pages from 127.0.0.1, and faultrows.FramePages,
// pages with iframes, under faultrows.FramesPrefix. A stalled handler
// returns when the browser gives up or t ends, so Close never waits on it.
func serve(t testing.TB) *httptest.Server {
	t.Helper()
	quit := make(chan struct{})
	stall := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>ok</title></head><body><p>héllo</p></body></html>`)
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) { stall(r) })
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>partial</title></head><body><p>first part`)
		fmt.Fprint(w, "<!--"+strings.Repeat(" ", 2048)+"-->")
		w.(http.Flusher).Flush()
		stall(r)
	})
	mux.HandleFunc("/reload50", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>reload50</title><script>setTimeout(() => location.reload(), 50)</script>`)
	})
	var reloadsStopped atomic.Bool
	mux.HandleFunc("/reload-inline", func(w http.ResponseWriter, r *http.Request) {
		if reloadsStopped.Load() {
			fmt.Fprint(w, `<!doctype html><title>reload-inline</title><p>stopped`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>reload-inline</title><script>location.reload()</script>`)
	})
	mux.HandleFunc("/reload-inline/stop", func(w http.ResponseWriter, r *http.Request) { reloadsStopped.Store(true) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		var kb int
		fmt.Sscan(r.URL.Query().Get("kb"), &kb)
		fmt.Fprint(w, "<!doctype html><html><body hidden>")
		row := "<p>" + strings.Repeat("héllo wörld 日本語 👩‍💻 ", 100) + "</p>\n"
		fmt.Fprint(w, strings.Repeat(row, kb*1024/len(row)+1))
		fmt.Fprint(w, "</body></html>")
	})
	mux.Handle(faultrows.FramesPrefix, faultrows.FramePages(deadURL(t), quit))
	mux.HandleFunc(faultrows.SignInPath, faultrows.SignIn)
	mux.HandleFunc(faultrows.DownloadPath, faultrows.Download)
	mux.HandleFunc(faultrows.ChooserPath, faultrows.Chooser)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: Close waits for the handlers
	return srv
}

// deadURL is an http URL of 127.0.0.1 where nothing listens.
func deadURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/"
}

func ptr[T any](v T) *T { return &v }
