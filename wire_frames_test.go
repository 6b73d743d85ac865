package tabguard_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/tabstate"
)

// recorder is rod's CDP client on a connection of its own to the shared
// browser, which records every command it sends: the session it went to
// and its method.
type recorder struct {
	rod.CDPClient
	mu   sync.Mutex
	sent []sentCommand
}

type sentCommand struct{ session, method string }

// newRecorder dials the shared browser; the connection closes when t ends.
func newRecorder(t *testing.T) *recorder {
	t.Helper()
	conn, _, err := websocket.Dial(testbrowser.Context(t, 10*time.Second), testbrowser.Shared(t).URL, nil)
	require.NoError(t, err)
	conn.SetReadLimit(-1)
	t.Cleanup(func() { _ = conn.CloseNow() })
	return &recorder{CDPClient: cdp.New().Start(ownTransport{conn})}
}

// Call records the command, then sends it.
func (r *recorder) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	r.mu.Lock()
	r.sent = append(r.sent, sentCommand{sessionID, method})
	r.mu.Unlock()
	return r.CDPClient.Call(ctx, sessionID, method, params)
}

// since lists the commands sent after the first n, as "<session> <method>"
// with the session named "browser", "tab" (tab's) or "other", sorted: the
// engine sends some of them at once, in no fixed order. It also returns
// how many were sent in all.
func (r *recorder) since(n int, tab string) ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.sent[n:] {
		name := "other"
		switch c.session {
		case "":
			name = "browser"
		case tab:
			name = "tab"
		}
		out = append(out, name+" "+c.method)
	}
	sort.Strings(out)
	return out, len(r.sent)
}

// Following a tab's iframes adds no CDP command to a tab without any:
// Watch sends what it sent before frames were followed, each healthy
// Eval sends its one Runtime.evaluate and nothing else, and Close sends
// nothing. Frames are learned from the events the watcher already
// receives; only a call that asks for frames (Frames, EvalFrame) may ask
// the browser for them. (Close sends two commands: it hands the tab's file
// choosers back and removes the print script.)
func TestWireFramesAddNoMessage(t *testing.T) {
	t.Parallel()
	const evals = 20
	srv := serve(t)
	rec := newRecorder(t)
	page := testbrowser.NewPage(t, &testbrowser.Browser{Browser: rec.browser(t)})
	require.NoError(t, navigate(t, page, srv.URL))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
	tab := string(page.SessionID)

	_, n := rec.since(0, tab)
	w := watch(t, page, nil)
	got, n := rec.since(n, tab)
	want := []string{
		"browser Browser.getVersion",          // WatchBrowser: does the transport take the events (Connect)?
		"browser Browser.setDownloadBehavior", // the download policy, once
	}
	for range tabstate.PromptingPermissions() {
		want = append(want, "browser Browser.setPermission") // the permission policy, once
	}
	want = append(want,
		"browser Target.getBrowserContexts",         // the contexts the policies go to
		"browser Target.getTargetInfo",              // the tab's URL
		"browser Target.getTargets",                 // the browser's tabs
		"tab Inspector.enable",                      // a crash before Watch
		"tab Network.enable",                        // load failures
		"tab Page.addScriptToEvaluateOnNewDocument", // print replaced
		"tab Page.getNavigationHistory",             // is the URL committed?
		"tab Page.setInterceptFileChooserDialog",    // file choosers held
		"tab Page.setLifecycleEventsEnabled",        // DOMContentLoaded, paints, network idle
		"tab Runtime.evaluate",                      // readyState and location: loaded, or an error page?
	)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands Watch sent mismatch (-want +got):\n%s", diff)
	}

	ctx := testbrowser.Context(t, 10*time.Second)
	for i := range evals {
		res, err := w.Eval(ctx, `(i) => i + 1`, i)
		require.NoError(t, err)
		require.Equal(t, i+1, res.Value.Int())
	}
	got, n = rec.since(n, tab)
	want = nil
	for range evals {
		want = append(want, "tab Runtime.evaluate")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commands of %d Evals mismatch (-want +got):\n%s", evals, diff)
	}

	require.NoError(t, w.Close())
	got, _ = rec.since(n, tab)
	// Close hands the tab's file choosers back and removes the print
	// script, and sends nothing for frames.
	if diff := cmp.Diff([]string{"tab Page.removeScriptToEvaluateOnNewDocument", "tab Page.setInterceptFileChooserDialog"}, got); diff != "" {
		t.Errorf("commands Close sent mismatch (-want +got):\n%s", diff)
	}
}

// browser is a rod browser on r.
func (r *recorder) browser(t *testing.T) *rod.Browser {
	t.Helper()
	b := rod.New().Client(r)
	require.NoError(t, b.Connect())
	return b
}

// manyFrames is how many iframes TestFramesNoGoroutinePerFrame's page
// holds: a goroutine per frame would add five times the slack.
const manyFrames = 10

// TestFramesNoGoroutinePerFrame watches a tab with no iframe and one with
// manyFrames, lists the frames and evaluates in each, and compares the
// goroutines each watch leaves running: following frames, reaching them
// and the sessions of out-of-process ones start no goroutine per frame.
// It does not run in parallel: it counts the process's goroutines.
func TestFramesNoGoroutinePerFrame(t *testing.T) {
	// A goroutine of an earlier test that ends while a tab is measured.
	const slack = 2
	srv := manyFramesServer(t)
	for _, mode := range []struct {
		name     string
		isolated bool
	}{{"isolation-off", false}, {"isolation-on", true}} {
		t.Run(mode.name, func(t *testing.T) {
			b := testbrowser.Shared(t)
			if mode.isolated {
				b = testbrowser.SharedIsolated(t)
			}
			// Measured in up to two rounds, each a tab with none and one
			// with many side by side, keeping the round whose gap is least:
			// goroutines of other work that start or end during a count
			// move one round's gap, while a goroutine per frame would add
			// manyFrames to every round's. A first round within the slack
			// has shown it.
			none, many := 0, math.MaxInt
			for range 2 {
				n := watchedGoroutines(t, b, srv, "/none", 0, mode.isolated)
				m := watchedGoroutines(t, b, srv, "/many", manyFrames, mode.isolated)
				if m-n < many-none {
					none, many = n, m
				}
				if many <= none+slack {
					break
				}
			}
			t.Logf("goroutines a watched tab adds: %d with no iframe, %d with %d", none, many, manyFrames)
			if many > none+slack {
				t.Errorf("a watched tab with %d iframes adds %d goroutines; want at most %d, as one with none (%d) and %d more",
					manyFrames, many, none+slack, none, slack)
			}
		})
	}
}

// framesServer serves "/none", a page with no iframe, and "/many", one
// with manyFrames iframes of the frame pages, of the same site; "/many?cross"
// puts them on another site (localhost on the same port). Each connection
// it holds open runs a goroutine of the server's, which conns counts.
type framesServer struct {
	*httptest.Server
	conns atomic.Int64
}

func manyFramesServer(t *testing.T) *framesServer {
	t.Helper()
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle(faultrows.FramesPrefix, faultrows.FramePages(testbrowser.DeadURL(t), quit))
	mux.HandleFunc("/none", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>none</title><p>no iframe`)
	})
	mux.HandleFunc("/many", func(w http.ResponseWriter, r *http.Request) {
		origin := ""
		if r.URL.Query().Has("cross") {
			origin = "http://localhost:" + r.Host[strings.LastIndexByte(r.Host, ':')+1:]
		}
		fmt.Fprint(w, `<!doctype html><title>many</title>`)
		for i := range manyFrames {
			fmt.Fprintf(w, `<iframe src="%s%s%d"></iframe>`, origin, faultrows.FrameInner, i)
		}
	})
	fs := &framesServer{Server: httptest.NewUnstartedServer(mux)}
	fs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			fs.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			fs.conns.Add(-1)
		}
	}
	fs.Start()
	t.Cleanup(fs.Close)
	t.Cleanup(func() { close(quit) }) // runs first: Close waits for the handlers
	return fs
}

// watchedGoroutines opens a tab on b, watches it, loads path of srv in it,
// waits for its frames iframes to load (each out of process when
// isolated), evaluates in each and lists them, and returns how many
// goroutines more than before the tab the process then runs, once they
// have settled, leaving out the server's. The tab and its watcher are
// closed before it returns.
func watchedGoroutines(t *testing.T, b *testbrowser.Browser, srv *framesServer, path string, frames int, isolated bool) int {
	t.Helper()
	url := srv.URL + path
	if isolated && frames > 0 {
		url += "?cross"
	}
	before := settledGoroutines(srv)
	page := testbrowser.NewPage(t, b)
	w, err := tabguard.Watch(page, nil)
	require.NoError(t, err)
	defer func() { _ = w.Close() }()
	ctx := testbrowser.Context(t, 20*time.Second)
	require.NoError(t, w.Navigate(ctx, url))
	eventually(t, fmt.Sprintf("%d loaded iframes", frames), func() bool {
		fs := w.Frames()
		for _, f := range fs {
			if f.Loading || f.OutOfProcess != isolated {
				return false
			}
		}
		return len(fs) == frames
	})
	for _, f := range w.Frames() {
		res, err := w.EvalFrame(ctx, f.ID, faultrows.TitleWhenLoaded)
		require.NoError(t, err, "frame %s", f.URL)
		require.True(t, strings.HasPrefix(res.Value.Str(), "inner-"), "frame %s: title %q", f.URL, res.Value.Str())
	}
	require.Len(t, w.Frames(), frames)
	res, err := w.Eval(ctx, faultrows.TitleWhenLoaded)
	require.NoError(t, err)
	require.NotEmpty(t, res.Value.Str(), "the tab's title")
	return settledGoroutines(srv) - before
}

// settledGoroutines returns the process's goroutine count, less the
// server's, once it has held still for 100 ms (within 5 s): goroutines
// that are about to return are not counted.
func settledGoroutines(srv *framesServer) int {
	count := func() int { return runtime.NumGoroutine() - int(srv.conns.Load()) }
	n, still := count(), 0
	for deadline := time.Now().Add(5 * time.Second); still < 10 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		if m := count(); m != n {
			n, still = m, 0
			continue
		}
		still++
	}
	return n
}
