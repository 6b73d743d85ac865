package chromedp015guard_test

import (
	"context"
	"fmt"
	"github.com/tabguard/tabguard/internal/testctx"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// serve starts a 127.0.0.1 server for t: "/" is a small page.
func serve(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>ok</title></head><body><p>héllo</p></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// within returns a context that ends after d or when t ends, with no
// deadline of its own (testctx.Within): a watcher's call under it is
// bounded by the watcher's eval timeout.
func within(t *testing.T, d time.Duration) context.Context {
	return testctx.Within(t, context.Background(), d)
}

// fixture is a tab of the shared browser, loaded at a fresh server's "/",
// and its watcher.
type fixture struct {
	srv *httptest.Server
	tab context.Context
	w   *chromedp015guard.Watcher
}

func newFixture(t *testing.T, opts *chromedp015guard.Options) *fixture {
	t.Helper()
	f := &fixture{srv: serve(t)}
	tab, cancel := chromedp.NewContext(sharedBrowser)
	t.Cleanup(cancel)
	f.tab = tab
	require.NoError(t, chromedp.Run(tab), "open a tab")
	w, err := chromedp015guard.Watch(tab, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	f.w = w
	require.NoError(t, w.Navigate(within(t, 10*time.Second), f.srv.URL))
	_, err = w.Wait(within(t, 10*time.Second), func(s chromedp015guard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	return f
}

// runJS starts expression in the tab and returns at once.
func (f *fixture) runJS(t *testing.T, expression string) {
	t.Helper()
	_, err := f.w.Eval(within(t, 5*time.Second), `(e) => { setTimeout(() => (0, eval)(e), 0); return 1 }`, expression)
	require.NoError(t, err)
}

// crash kills the tab's renderer and returns once the watcher has Chrome's
// report with its status.
func (f *fixture) crash(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(f.tab, 300*time.Millisecond)
	defer cancel()
	_ = chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error { return page.Crash().Do(ctx) }))
	deadline := time.Now().Add(10 * time.Second)
	for f.w.State().CrashReason == "" {
		if time.Now().After(deadline) {
			t.Fatal("no crash report within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
