package chromedpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// The faults of iframes are rows of the fault matrix (faults_frames_test.go);
// these tests, and those of frames_oop_test.go, check what the rows do
// not: the frame's own world, reads of a frame, the arguments, that a
// frame answers again after a move, and the frames of a tab watched after
// its page loaded.

// isolation runs fn with site isolation off and on, each on the browser
// the package's tests share in that mode.
func isolation(t *testing.T, fn func(t *testing.T, browser context.Context, isolated bool)) {
	for _, mode := range []struct {
		name     string
		isolated bool
	}{{"isolation-off", false}, {"isolation-on", true}} {
		t.Run(mode.name, func(t *testing.T) {
			browser := sharedBrowser
			if mode.isolated {
				browser = sharedIsolated(t)
			}
			fn(t, browser, mode.isolated)
		})
	}
}

// framePage opens srv's frame page name on browser, watched from before
// its load, and returns the watcher once the tab lists want iframes.
func framePage(t *testing.T, browser context.Context, srv *httptest.Server, name string, want int) (context.Context, *chromedpguard.Watcher) {
	t.Helper()
	tab := newTab(t, browser)
	w := watch(t, tab, nil)
	require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL+faultrows.FramePage(name)))
	eventually(t, fmt.Sprintf("%d iframes", want), func() bool { return len(w.Frames()) == want })
	return tab, w
}

// frameAt returns the frame whose URL holds part, once its document is
// there.
func frameAt(t *testing.T, w *chromedpguard.Watcher, part string) chromedpguard.FrameInfo {
	t.Helper()
	var found chromedpguard.FrameInfo
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

// str is a result's value as a string, or its JSON when it is no string.
func str(res *runtime.RemoteObject) string {
	var s string
	if res == nil || json.Unmarshal(res.Value, &s) != nil {
		return fmt.Sprint(res)
	}
	return s
}

func TestEvalFrame(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	isolation(t, func(t *testing.T, browser context.Context, isolated bool) {
		_, w := framePage(t, browser, srv, "two", 2)
		ctx := within(t, 10*time.Second)
		for _, tc := range []struct {
			part, want string
			oop        bool
		}{
			{faultrows.FrameInner + "a", "inner-a iv-127.0.0.1", false},
			{"localhost", "inner-b iv-localhost", isolated},
		} {
			f := frameAt(t, w, tc.part)
			assert.Equal(t, tc.oop, f.OutOfProcess, "OutOfProcess of %s", f.URL)
			assert.NoError(t, f.Refusal)
			res, err := w.EvalFrame(ctx, f.ID, `(sep) => new Promise(r => {
				const answer = () => r(document.title + sep + innerVar + sep + typeof mainVar)
				document.readyState == "complete" ? answer() : addEventListener("load", answer)
			})`, " ")
			require.NoError(t, err, "frame %s", f.URL)
			assert.True(t, strings.HasPrefix(str(res), tc.want), "got %q in %s", str(res), f.URL)
			assert.True(t, strings.HasSuffix(str(res), " undefined"), "the frame's world, not the page's: %q", str(res))

			win, err := w.ReadDOM(ctx, chromedpguard.DOMOptions{Frame: f.ID, Text: true})
			require.NoError(t, err)
			assert.Contains(t, win.Content, "inner ", "ReadDOM of the frame")
		}
		main, err := w.Eval(ctx, `() => typeof innerVar`)
		require.NoError(t, err)
		assert.Equal(t, "undefined", str(main), "the tab's Eval stays in the page")
	})
}

func TestEvalFrameArgs(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	isolation(t, func(t *testing.T, browser context.Context, isolated bool) {
		_, w := framePage(t, browser, srv, "blank", 1)
		ctx := within(t, 10*time.Second)
		id := w.Frames()[0].ID
		res, err := w.EvalFrame(ctx, id, `() => document.body.textContent`)
		require.NoError(t, err, "an iframe with no src holds its empty document, which is its page")
		assert.Equal(t, "written", str(res))

		res, err = w.EvalFrame(ctx, id, `(a, b) => ({sum: a.n + b[1], s: a.s})`, map[string]any{"n": 40, "s": "é"}, []int{1, 2})
		require.NoError(t, err)
		assert.JSONEq(t, `{"sum": 42, "s": "é"}`, string(res.Value))

		_, err = w.EvalFrame(ctx, "NOSUCHFRAME", `() => 1`)
		require.ErrorIs(t, err, chromedpguard.ErrFrameDetached)
		_, err = w.EvalFrame(ctx, "", `() => 1`)
		require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
		_, err = w.EvalFrame(ctx, id, " ; ")
		require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
		_, err = w.EvalFrame(ctx, id, `() => 1`, func() {})
		require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
		obj, err := w.Eval(ctx, `() => document`)
		require.NoError(t, err)
		_, err = w.EvalFrame(ctx, id, `(d) => d.title`, obj)
		require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument, "a remote object belongs to its own context")
		_, err = w.EvalFrame(ctx, id, `() => { throw new Error("boom") }`)
		require.ErrorContains(t, err, "boom")
		var ee *chromedp.ExceptionError
		assert.ErrorAs(t, err, &ee, "an exception reads as chromedp's, as Eval's does")
	})
}

// TestEvalFrameAfterMove points an iframe at another site: the frame keeps
// its ID, is listed at its new page (out of process with site isolation),
// and EvalFrame reaches it there.
func TestEvalFrameAfterMove(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	isolation(t, func(t *testing.T, browser context.Context, isolated bool) {
		_, w := framePage(t, browser, srv, "same", 1)
		f := frameAt(t, w, faultrows.FrameInner)
		ctx := within(t, 10*time.Second)
		_, err := w.Eval(ctx, `(u) => { document.getElementById("a").src = u }`,
			strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+faultrows.FrameInner+"moved")
		require.NoError(t, err)
		// The frame is listed at its new page once the navigation starts,
		// and answers from it once the page commits.
		var errs []error
		eventually(t, "the frame to answer from its new page", func() bool {
			res, err := w.EvalFrame(ctx, f.ID, faultrows.TitleWhenLoaded)
			if err != nil {
				errs = append(errs, err)
				return false
			}
			return str(res) == "inner-moved"
		})
		for _, err := range errs {
			if !errors.Is(err, chromedpguard.ErrNavigated) && !errors.Is(err, chromedpguard.ErrFrameDetached) {
				t.Errorf("on the way: %v", err)
			}
		}
		moved := frameAt(t, w, "n=moved")
		assert.Equal(t, f.ID, moved.ID, "Chrome keeps the frame's ID")
		assert.Equal(t, isolated, moved.OutOfProcess)
	})
}

// TestEvalFrameWatchedAfterLoad watches tabs that chromedp.Navigate has
// loaded, as a chromedp program often does: their frames are learned from
// the browser once, and answer as if the watcher had seen them load. A lazy
// iframe out of view is waited for, never answered from Chrome's empty
// initial document; a refused one is refused, though the browser keeps no
// net error for it.
func TestEvalFrameWatchedAfterLoad(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	browser := sharedIsolated(t)
	loaded := func(name string, opts *chromedpguard.Options) *chromedpguard.Watcher {
		tab := newTab(t, browser)
		nctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		require.NoError(t, chromedp.Do(nctx, chromedp.Navigate(srv.URL+faultrows.FramePage(name))))
		return watch(t, tab, opts)
	}

	w := loaded("two", nil)
	require.Len(t, w.Frames(), 2)
	for _, f := range w.Frames() {
		assert.Equal(t, strings.Contains(f.URL, "localhost"), f.OutOfProcess, "OutOfProcess of %s", f.URL)
		res, err := w.EvalFrame(within(t, 10*time.Second), f.ID, `() => document.title`)
		require.NoError(t, err, "frame %s", f.URL)
		assert.True(t, strings.HasPrefix(str(res), "inner-"), "got %q in %s", str(res), f.URL)
	}

	w = loaded("lazy", &chromedpguard.Options{EvalTimeout: time.Second})
	require.Len(t, w.Frames(), 1)
	assert.True(t, w.Frames()[0].Loading, "a lazy iframe holds no document of its own")
	res, err := w.EvalFrame(within(t, 10*time.Second), w.Frames()[0].ID, `() => location.href`)
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te, "not Chrome's empty document: %s", str(res))
	assert.Equal(t, chromedpguard.TimeoutLoading, te.Cause)
	assert.Contains(t, err.Error(), "never loaded a document")

	w = loaded("dead", nil)
	require.Len(t, w.Frames(), 1)
	_, err = w.EvalFrame(within(t, 10*time.Second), w.Frames()[0].ID, `() => location.href`)
	require.ErrorIs(t, err, chromedpguard.ErrNoDocument)
	assert.Contains(t, err.Error(), "error page loading http://127.0.0.1:", "the URL, from the frame tree")
}

// TestEvalFrameMainFrame holds that EvalFrame with the tab's main frame
// (its target ID, which Frames does not list) is bad input naming the call
// that evaluates there, not a detached frame.
func TestEvalFrameMainFrame(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	_, err := f.w.EvalFrame(within(t, 10*time.Second), string(f.w.TargetID()), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	assert.NotErrorIs(t, err, chromedpguard.ErrFrameDetached)
	assert.Contains(t, err.Error(), "the tab's main frame: evaluate in it with Watcher.Eval")
}
