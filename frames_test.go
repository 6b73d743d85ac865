package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// The faults of iframes are rows of the fault matrix (faults_frames_test.go);
// these tests check what the rows do not: the frame's own world, reads of
// a frame, the arguments, and that a frame answers again after a move or
// a crash.

// isolation runs fn with site isolation off and on, each on the browser
// the package's tests share in that mode.
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

// framePage opens srv's frame page name on b, watched from before its
// load, and returns the watcher once the tab lists want iframes.
func framePage(t *testing.T, b *testbrowser.Browser, srv *httptest.Server, name string, want int) (*rod.Page, *tabguard.Watcher) {
	t.Helper()
	page := testbrowser.NewPage(t, b)
	w := watch(t, page, nil)
	require.NoError(t, w.Navigate(testbrowser.Context(t, 10*time.Second), srv.URL+faultrows.FramePage(name)))
	eventually(t, fmt.Sprintf("%d iframes", want), func() bool { return len(w.Frames()) == want })
	return page, w
}

// frameAt returns the frame whose URL holds part, once its document is
// there.
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
	srv := serve(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		_, w := framePage(t, b, srv, "two", 2)
		ctx := testbrowser.Context(t, 10*time.Second)
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
			assert.True(t, strings.HasPrefix(res.Value.Str(), tc.want), "got %q in %s", res.Value.Str(), f.URL)
			assert.True(t, strings.HasSuffix(res.Value.Str(), " undefined"), "the frame's world, not the page's: %q", res.Value.Str())

			win, err := w.ReadDOM(ctx, tabguard.DOMOptions{Frame: f.ID, Text: true})
			require.NoError(t, err)
			assert.Contains(t, win.Content, "inner ", "ReadDOM of the frame")
		}
		main, err := w.Eval(ctx, `() => typeof innerVar`)
		require.NoError(t, err)
		assert.Equal(t, "undefined", main.Value.Str(), "the tab's Eval stays in the page")
	})
}

func TestEvalFrameArgs(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		_, w := framePage(t, b, srv, "blank", 1)
		ctx := testbrowser.Context(t, 10*time.Second)
		id := w.Frames()[0].ID
		res, err := w.EvalFrame(ctx, id, `() => document.body.textContent`)
		require.NoError(t, err, "an iframe with no src holds its empty document, which is its page")
		assert.Equal(t, "written", res.Value.Str())

		_, err = w.EvalFrame(ctx, "NOSUCHFRAME", `() => 1`)
		require.ErrorIs(t, err, tabguard.ErrFrameDetached)
		_, err = w.EvalFrame(ctx, "", `() => 1`)
		require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
		_, err = w.EvalFrame(ctx, id, " ; ")
		require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
		_, err = w.EvalFrame(ctx, id, `() => 1`, func() {})
		require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
		_, err = w.EvalFrame(ctx, id, `() => { throw new Error("boom") }`)
		require.ErrorContains(t, err, "boom")
	})
}

// TestEvalFrameAfterMove points an iframe at another site: the frame keeps
// its ID, is listed at its new page (out of process with site isolation),
// and EvalFrame reaches it there.
func TestEvalFrameAfterMove(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		_, w := framePage(t, b, srv, "same", 1)
		f := frameAt(t, w, faultrows.FrameInner)
		ctx := testbrowser.Context(t, 10*time.Second)
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
			return res.Value.Str() == "inner-moved"
		})
		for _, err := range errs {
			if !errors.Is(err, tabguard.ErrNavigated) && !errors.Is(err, tabguard.ErrFrameDetached) {
				t.Errorf("on the way: %v", err)
			}
		}
		moved := frameAt(t, w, "n=moved")
		assert.Equal(t, f.ID, moved.ID, "Chrome keeps the frame's ID")
		assert.Equal(t, isolated, moved.OutOfProcess)
	})
}

// TestEvalFrameCrashRecovery crashes an out-of-process iframe: the frame is
// refused, the tab answers, and after Reload the frame answers again.
func TestEvalFrameCrashRecovery(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	// A browser of its own: Chrome shares the crashed renderer between
	// the iframes of one site in every tab.
	b, err := testbrowser.LaunchSiteIsolated()
	require.NoError(t, err)
	t.Cleanup(b.Close)
	page, w := framePage(t, b, srv, "cross", 1)
	f := frameAt(t, w, "localhost")
	require.True(t, f.OutOfProcess)
	ctx := testbrowser.Context(t, 10*time.Second)
	crashFrame(t, page, f.ID)
	_, err = w.EvalFrame(ctx, f.ID, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrFrameCrashed, "at once after Chrome's report")
	require.ErrorIs(t, w.Frames()[0].Refusal, tabguard.ErrFrameCrashed)
	res, err := w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the tab lives on")
	assert.Equal(t, "outer", res.Value.Str())

	require.NoError(t, w.Reload(ctx))
	again := frameAt(t, w, "localhost")
	res, err = w.EvalFrame(ctx, again.ID, faultrows.TitleWhenLoaded)
	require.NoError(t, err, "after Reload, the frame answers again")
	assert.Equal(t, "inner-b", res.Value.Str())
}

// crashFrame kills an out-of-process iframe's renderer through a session
// of its own (Chrome never answers Page.crash), and returns once Chrome has
// reported the crash: a call made then must know of it, as a user's would.
func crashFrame(t *testing.T, page *rod.Page, id string) {
	t.Helper()
	b := page.Browser()
	ctx := testbrowser.Context(t, 10*time.Second)
	crashed := make(chan struct{})
	wait := b.Context(ctx).EachEvent(func(e *proto.TargetTargetCrashed) bool { return string(e.TargetID) == id })
	go func() { defer close(crashed); wait() }()
	at, err := proto.TargetAttachToTarget{TargetID: proto.TargetTargetID(id), Flatten: true}.Call(b.Context(ctx))
	require.NoError(t, err)
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, _ = b.Call(cctx, string(at.SessionID), "Page.crash", nil)
	select {
	case <-crashed:
	case <-ctx.Done():
		t.Fatal("Chrome reported no crash of the frame within 10s")
	}
}

// TestAwaitAcrossNavigation starts an eval that awaits a promise that
// never settles, then navigates the tab, to a page of the same site and of
// another (a new process): each time the eval answers ErrNavigated, never
// at its deadline, however Chrome swaps the document under it.
func TestAwaitAcrossNavigation(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	isolation(t, func(t *testing.T, b *testbrowser.Browser, isolated bool) {
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL))
		w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})
		for i, to := range []string{srv.URL + "/?again", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/", srv.URL + "/"} {
			done := make(chan error, 1)
			go func() {
				_, err := w.Eval(testbrowser.Context(t, 20*time.Second), `() => new Promise(() => {})`)
				done <- err
			}()
			time.Sleep(100 * time.Millisecond)
			// Straight on the session, as the page's own script would.
			_, err := proto.RuntimeEvaluate{Expression: fmt.Sprintf("location.href = %q", to)}.Call(page.Context(testbrowser.Context(t, 10*time.Second)))
			require.NoError(t, err)
			select {
			case err := <-done:
				require.ErrorIs(t, err, tabguard.ErrNavigated, "navigation %d, to %s", i, to)
			case <-time.After(10 * time.Second):
				t.Fatalf("navigation %d, to %s: the awaited eval did not answer within 10s", i, to)
			}
			eventually(t, "the new page", func() bool { s := w.State(); return s.URL == to && s.Loaded })
		}
	})
}

// TestEvalFrameMainFrame holds that EvalFrame with the tab's main frame
// (its target ID, which Frames does not list) is bad input naming the call
// that evaluates there, not a detached frame.
func TestEvalFrameMainFrame(t *testing.T) {
	t.Parallel()
	w := watch(t, loadedPage(t, serve(t)), nil)
	_, err := w.EvalFrame(testbrowser.Context(t, 10*time.Second), string(w.TargetID()), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	assert.NotErrorIs(t, err, tabguard.ErrFrameDetached)
	assert.Contains(t, err.Error(), "the tab's main frame: evaluate in it with Watcher.Eval")
}
