package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// frameServer serves pages with iframes from 127.0.0.1; a cross-site
// iframe loads from localhost on the same port, which site isolation puts
// in a process of its own. "/inner?n=x" is an iframe's page, which sets
// the global innerVar; "/page/<name>" is a page whose iframes frameSpecs
// names; dead is a URL nothing answers.
func frameServer(t testing.TB) *httptest.Server {
	t.Helper()
	quit := stalling(t)
	dead := testbrowser.DeadURL(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		fmt.Fprintf(w, `<!doctype html><title>inner-%s</title><script>window.innerVar = "iv-" + location.host</script><p>inner %s</p>`, n, n)
	})
	mux.HandleFunc("/reload50", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>reload50</title><script>window.innerVar = 1; setTimeout(() => location.reload(), 50)</script>`)
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) { stall(r, quit) })
	mux.HandleFunc("/page/", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host)
		cross := "http://localhost:" + port
		frames := map[string]string{
			"two":    `<iframe id=a src="/inner?n=a"></iframe><iframe id=b src="` + cross + `/inner?n=b"></iframe>`,
			"same":   `<iframe id=a src="/inner?n=a"></iframe>`,
			"cross":  `<iframe id=b src="` + cross + `/inner?n=b"></iframe>`,
			"lazy":   `<div style="height:30000px"></div><iframe id=l loading=lazy src="/inner?n=lazy"></iframe>`,
			"stall":  `<iframe id=s src="/stall"></iframe>`,
			"dead":   `<iframe id=d src="` + dead + `"></iframe>`,
			"reload": `<iframe id=r src="/reload50"></iframe>`,
			"blank":  `<iframe id=e></iframe><script>document.getElementById("e").contentDocument.body.innerHTML = "<p>written</p>"</script>`,
		}[strings.TrimPrefix(r.URL.Path, "/page/")]
		fmt.Fprintf(w, `<!doctype html><title>outer</title><script>window.mainVar = 1</script><p>outer</p>%s`, frames)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	return srv
}

// isolation runs fn with site isolation off and on, each on a browser of
// its own, shared with the other tests of the mode.
func isolation(t *testing.T, fn func(t *testing.T, b *testbrowser.Browser, isolated bool)) {
	for _, mode := range []struct {
		name     string
		isolated bool
	}{{"isolation-off", false}, {"isolation-on", true}} {
		t.Run(mode.name, func(t *testing.T) {
			b := testbrowser.Shared(t)
			if mode.isolated {
				b = testbrowser.SharedIsolated(t)
			}
			fn(t, b, mode.isolated)
		})
	}
}

// framePage opens srv's page name on b, watched, and returns the watcher
// once the tab lists as many iframes as want.
func framePage(t *testing.T, b *testbrowser.Browser, srv *httptest.Server, name string, want int) (*rod.Page, *tabguard.Watcher) {
	t.Helper()
	page := testbrowser.NewPage(t, b)
	w := watch(t, page, nil)
	require.NoError(t, w.Navigate(testbrowser.Context(t, 10*time.Second), srv.URL+"/page/"+name))
	eventually(t, fmt.Sprintf("%d iframes", want), func() bool { return len(w.Frames()) == want })
	return page, w
}

// frameAt returns the frame whose URL holds part, once it is listed so.
func frameAt(t *testing.T, w *tabguard.Watcher, part string) tabguard.FrameInfo {
	t.Helper()
	var found tabguard.FrameInfo
	eventually(t, "a frame at "+part, func() bool {
		for _, f := range w.Frames() {
			if strings.Contains(f.URL, part) && !f.Loading {
				found = f
				return true
			}
		}
		return false
	})
	return found
}

func TestEvalFrame(t *testing.T) {
	t.Parallel()
	srv := frameServer(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		_, w := framePage(t, b, srv, "two", 2)
		ctx := testbrowser.Context(t, 10*time.Second)
		for _, tc := range []struct {
			part, want string
			oop        bool
		}{
			{"/inner?n=a", "inner-a iv-127.0.0.1", false},
			{"localhost", "inner-b iv-localhost", isolated},
		} {
			f := frameAt(t, w, tc.part)
			assert.Equal(t, tc.oop, f.OutOfProcess, "OutOfProcess of %s", f.URL)
			assert.NoError(t, f.Refusal)
			res, err := w.EvalFrame(ctx, f.ID, `(sep) => new Promise(r => {
				const answer = () => r(document.title + sep + innerVar + (typeof mainVar))
				document.readyState == "complete" ? answer() : addEventListener("load", answer)
			})`, " ")
			require.NoError(t, err, "frame %s", f.URL)
			assert.True(t, strings.HasPrefix(res.Value.Str(), tc.want), "got %q in %s", res.Value.Str(), f.URL)
			assert.True(t, strings.HasSuffix(res.Value.Str(), "undefined"), "the frame's world, not the page's: %q", res.Value.Str())
			p, err := w.EvalFrame(ctx, f.ID, `() => new Promise(r => setTimeout(() => r(location.pathname), 10))`)
			require.NoError(t, err)
			assert.Equal(t, "/inner", p.Value.Str(), "an awaited promise")

			win, err := w.ReadDOM(ctx, tabguard.DOMOptions{Frame: f.ID, Text: true})
			require.NoError(t, err)
			assert.Contains(t, win.Content, "inner ", "ReadDOM of the frame")
		}
		main, err := w.Eval(ctx, `() => typeof innerVar`)
		require.NoError(t, err)
		assert.Equal(t, "undefined", main.Value.Str(), "the tab's Eval stays in the page")
	})
}

func TestEvalFrameRefusals(t *testing.T) {
	t.Parallel()
	srv := frameServer(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		t.Run("lazy", func(t *testing.T) {
			_, w := framePage(t, b, srv, "lazy", 1)
			f := w.Frames()[0]
			assert.True(t, f.Loading, "a lazy frame is in its first load: %+v", f)
			ctx, cancel := context.WithTimeout(testbrowser.Context(t, 10*time.Second), 1500*time.Millisecond)
			defer cancel()
			_, err := w.EvalFrame(ctx, f.ID, `() => location.href`)
			var te *tabguard.TimeoutError
			require.ErrorAs(t, err, &te, "never the empty initial document")
			assert.Equal(t, tabguard.TimeoutLoading, te.Cause)
			assert.Contains(t, te.Error(), "lazy iframe")
		})
		t.Run("stall", func(t *testing.T) {
			_, w := framePage(t, b, srv, "stall", 1)
			f := w.Frames()[0]
			ctx, cancel := context.WithTimeout(testbrowser.Context(t, 10*time.Second), 1500*time.Millisecond)
			defer cancel()
			_, err := w.EvalFrame(ctx, f.ID, `() => location.href`)
			var te *tabguard.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tabguard.TimeoutLoading, te.Cause)
			assert.Contains(t, te.Error(), "/stall")
		})
		t.Run("dead", func(t *testing.T) {
			_, w := framePage(t, b, srv, "dead", 1)
			var f tabguard.FrameInfo
			eventually(t, "the frame's load error", func() bool {
				f = w.Frames()[0]
				return f.Refusal != nil
			})
			require.ErrorIs(t, f.Refusal, tabguard.ErrNoDocument)
			_, err := w.EvalFrame(testbrowser.Context(t, 10*time.Second), f.ID, `() => location.href`)
			require.ErrorIs(t, err, tabguard.ErrNoDocument)
			assert.Contains(t, err.Error(), "net::ERR_CONNECTION_REFUSED")
			assert.Contains(t, err.Error(), "frame has no document")
		})
		t.Run("blank", func(t *testing.T) {
			_, w := framePage(t, b, srv, "blank", 1)
			res, err := w.EvalFrame(testbrowser.Context(t, 10*time.Second), w.Frames()[0].ID, `() => document.body.textContent`)
			require.NoError(t, err, "an iframe with no src holds its empty document, which is the page")
			assert.Equal(t, "written", res.Value.Str())
		})
		t.Run("unknown", func(t *testing.T) {
			_, w := framePage(t, b, srv, "same", 1)
			ctx := testbrowser.Context(t, 10*time.Second)
			_, err := w.EvalFrame(ctx, "NOSUCHFRAME", `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrFrameDetached)
			_, err = w.EvalFrame(ctx, "", `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
			_, err = w.EvalFrame(ctx, w.Frames()[0].ID, `() => 1`, func() {})
			require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
		})
	})
}

// pending starts a never-settling eval in frame id and returns its outcome.
func pending(t *testing.T, w *tabguard.Watcher, id string) <-chan error {
	done := make(chan error, 1)
	ctx := testbrowser.Context(t, 10*time.Second)
	go func() {
		_, err := w.EvalFrame(ctx, id, `() => new Promise(() => {})`)
		done <- err
	}()
	return done
}

// settled waits for an eval's outcome, up to 8 s.
func settled(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(8 * time.Second):
		t.Fatal("the eval in the frame did not answer within 8s")
		return nil
	}
}

func TestEvalFrameCutOff(t *testing.T) {
	t.Parallel()
	srv := frameServer(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		t.Run("removed", func(t *testing.T) {
			_, w := framePage(t, b, srv, "same", 1)
			f := frameAt(t, w, "/inner")
			done := pending(t, w, f.ID)
			time.Sleep(50 * time.Millisecond)
			_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `() => document.getElementById("a").remove()`)
			require.NoError(t, err)
			require.ErrorIs(t, settled(t, done), tabguard.ErrFrameDetached)
			assert.Empty(t, w.Frames())
			_, err = w.EvalFrame(testbrowser.Context(t, 5*time.Second), f.ID, `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrFrameDetached)
		})
		t.Run("navigated", func(t *testing.T) {
			_, w := framePage(t, b, srv, "same", 1)
			f := frameAt(t, w, "/inner")
			done := pending(t, w, f.ID)
			time.Sleep(50 * time.Millisecond)
			_, err := w.Eval(testbrowser.Context(t, 5*time.Second), `(u) => { document.getElementById("a").src = u }`,
				strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/inner?n=moved")
			require.NoError(t, err)
			err = settled(t, done)
			if isolated {
				require.ErrorIs(t, err, tabguard.ErrFrameDetached, "moved to a process of its own")
			} else {
				require.ErrorIs(t, err, tabguard.ErrNavigated)
			}
			moved := frameAt(t, w, "n=moved")
			assert.Equal(t, f.ID, moved.ID, "Chrome keeps the frame's ID")
			assert.Equal(t, isolated, moved.OutOfProcess)
			res, err := w.EvalFrame(testbrowser.Context(t, 5*time.Second), moved.ID, titleWhenLoaded)
			require.NoError(t, err)
			assert.Equal(t, "inner-moved", res.Value.Str())
		})
	})
}

func TestEvalFrameCrash(t *testing.T) {
	t.Parallel()
	srv := frameServer(t)
	b := testbrowser.SharedIsolated(t)
	page, w := framePage(t, b, srv, "cross", 1)
	f := frameAt(t, w, "localhost")
	require.True(t, f.OutOfProcess)
	ctx := testbrowser.Context(t, 10*time.Second)
	_, err := w.EvalFrame(ctx, f.ID, `() => 1`)
	require.NoError(t, err)
	done := pending(t, w, f.ID)
	time.Sleep(50 * time.Millisecond)
	crashFrame(t, page, f.ID)

	err = settled(t, done)
	require.ErrorIs(t, err, tabguard.ErrFrameCrashed)
	assert.Contains(t, err.Error(), "/inner?n=b", "names the frame's URL")
	_, err = w.EvalFrame(ctx, f.ID, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrFrameCrashed)
	res, err := w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the tab lives on")
	assert.Equal(t, "outer", res.Value.Str())

	require.NoError(t, w.Reload(ctx))
	again := frameAt(t, w, "localhost")
	res, err = w.EvalFrame(ctx, again.ID, titleWhenLoaded)
	require.NoError(t, err, "after Reload, the frame answers again")
	assert.Equal(t, "inner-b", res.Value.Str())
}

// titleWhenLoaded answers the document's title once it has loaded: a
// frame is listed once its document commits, before it has parsed.
const titleWhenLoaded = `() => new Promise(r => document.readyState == "complete" ? r(document.title) : addEventListener("load", () => r(document.title)))`

// crashFrame kills an out-of-process iframe's renderer through a session
// of its own; Chrome never answers Page.crash.
func crashFrame(t *testing.T, page *rod.Page, id string) {
	t.Helper()
	b := page.Browser()
	ctx := testbrowser.Context(t, 5*time.Second)
	at, err := proto.TargetAttachToTarget{TargetID: proto.TargetTargetID(id), Flatten: true}.Call(b.Context(ctx))
	require.NoError(t, err)
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, _ = b.Call(cctx, string(at.SessionID), "Page.crash", nil)
}

// TestEvalFrameReloading evaluates in an iframe that reloads itself every
// 50 ms: each eval answers, or says the frame navigated; no raw protocol
// error reaches the caller.
func TestEvalFrameReloading(t *testing.T) {
	t.Parallel()
	srv := frameServer(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		_, w := framePage(t, b, srv, "reload", 1)
		f := frameAt(t, w, "/reload50")
		ok, navigated := 0, 0
		for i := 0; i < 100; i++ {
			_, err := w.EvalFrame(testbrowser.Context(t, 5*time.Second), f.ID, `() => innerVar`)
			switch {
			case err == nil:
				ok++
			case errors.Is(err, tabguard.ErrNavigated):
				navigated++
			default:
				t.Errorf("eval %d: %v", i, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Logf("100 evals: %d answered, %d navigated", ok, navigated)
		assert.Positive(t, ok)
	})
}
