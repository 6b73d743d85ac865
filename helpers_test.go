package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// serve starts a 127.0.0.1 server for t: "/" is a small page, "/stall" never
// answers (until the request is cancelled), "/trickle" sends its headers and
// the start of a body and then stalls, "/big?kb=N" is a page of about N KiB,
// "/reload50" reloads itself every 50 ms and "/reload-inline" reloads as soon
// as its inline script is parsed, until "/reload-inline/stop" is requested;
// faultrows.FramePages serves pages with iframes under /frames/.
func serve(t testing.TB) *httptest.Server {
	t.Helper()
	quit := stalling(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>ok</title></head><body><p>héllo</p></body></html>`)
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		stall(r, quit)
	})
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		// Chrome sniffs the first 1 KiB for a charset before it parses.
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>partial</title></head><body><p>first part`)
		fmt.Fprint(w, "<!--"+strings.Repeat(" ", 2048)+"-->")
		w.(http.Flusher).Flush()
		stall(r, quit)
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
		// 1, 2, 3 and 4-byte runes and a ZWJ sequence, in long paragraphs:
		// few elements, in a hidden body, so the page loads in a blink even
		// when it is big. Laid out, 5 MB of it takes Chrome 2.5 s on an idle
		// machine, and far longer on a busy one.
		row := "<p>" + strings.Repeat("héllo wörld 日本語 👩‍💻 ", 100) + "</p>\n"
		fmt.Fprint(w, strings.Repeat(row, kb*1024/len(row)+1))
		fmt.Fprint(w, "</body></html>")
	})
	mux.Handle(faultrows.FramesPrefix, faultrows.FramePages(testbrowser.DeadURL(t), quit))
	mux.HandleFunc(faultrows.SignInPath, faultrows.SignIn)
	mux.HandleFunc(faultrows.DownloadPath, faultrows.Download)
	mux.HandleFunc(faultrows.ChooserPath, faultrows.Chooser)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: Close waits for the handlers
	return srv
}

// stalling returns the channel that ends stalled handlers when t ends.
// Close it in a cleanup registered after the server's, so it runs first.
func stalling(t testing.TB) chan struct{} {
	t.Helper()
	return make(chan struct{})
}

// stall holds a request until the browser gives up on it or quit closes:
// a load the test leaves pending (a crashed renderer does not cancel its
// navigation's request) must not block the server's Close.
func stall(r *http.Request, quit <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-quit:
	}
}

// watch starts a watcher on page and closes it when t ends.
func watch(t testing.TB, page *rod.Page, opts *tabguard.Options) *tabguard.Watcher {
	t.Helper()
	w, err := tabguard.Watch(page, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// navigate loads url in page within 10 s and returns rod's error, if any.
func navigate(t testing.TB, page *rod.Page, url string) error {
	t.Helper()
	return page.Context(testbrowser.Context(t, 10*time.Second)).Navigate(url)
}

// loadedPage opens a tab at srv's small page, loaded.
func loadedPage(t testing.TB, srv *httptest.Server) *rod.Page {
	t.Helper()
	page := testbrowser.Page(t)
	require.NoError(t, navigate(t, page, srv.URL))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
	return page
}

// crash kills the tab's renderer. Page.crash gets no reply from a crashed
// tab, so the call runs under a short context of its own.
// It returns once Chrome has reported the crash.
func crash(t testing.TB, page *rod.Page) {
	t.Helper()
	ctx := testbrowser.Context(t, 5*time.Second)
	crashed := make(chan struct{})
	wait := page.Browser().Context(ctx).EachEvent(func(e *proto.TargetTargetCrashed) bool {
		return e.TargetID == page.TargetID
	})
	go func() { defer close(crashed); wait() }()

	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_ = proto.PageCrash{}.Call(page.Context(cctx))
	select {
	case <-crashed:
	case <-ctx.Done():
		t.Fatal("Chrome reported no crash within 5s")
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

// blockedBy reports whether w now refuses evals with reason.
func blockedBy(t testing.TB, w *tabguard.Watcher, reason error) func() bool {
	return func() bool {
		err := w.Blocked(testbrowser.Context(t, 5*time.Second))
		return err != nil && errors.Is(err, reason)
	}
}

// startStalledLoad starts loading url, which never answers, in page and
// returns once the tab shows the load as pending; the load is stopped when t ends.
func startStalledLoad(t testing.TB, page *rod.Page, url string) {
	t.Helper()
	go func() { _ = navigate(t, page, url) }()
	eventually(t, "the load to start", func() bool {
		info, err := page.Context(testbrowser.Context(t, 2*time.Second)).Info()
		return err == nil && info.URL == url
	})
	t.Cleanup(func() { _ = proto.PageStopLoading{}.Call(page.Context(testbrowser.Context(t, 5*time.Second))) })
}
