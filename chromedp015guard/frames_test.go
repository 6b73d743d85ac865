package chromedp015guard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestFrames: a tab's iframes, in process and out of process (site
// isolation on), answer EvalFrame and ReadDOM from their own world; bad
// arguments are refused; Close detaches the session of an out-of-process
// frame and leaves the frame and the tab open; a crashed frame is refused
// while the tab answers, and answers again once the tab loads its page
// again. The browser is
// the test's own: the crash takes the site's iframes of every tab.
func TestFrames(t *testing.T) {
	t.Parallel()
	browser := isolatedBrowser(t)
	srv := serveFrames(t)
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Run(tab), "open a tab")
	bw, err := chromedp015guard.WatchBrowser(tab, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	w, err := bw.Watch(tab)
	require.NoError(t, err)
	ctx := within(t, 20*time.Second)
	require.NoError(t, w.Navigate(ctx, srv.URL+faultrows.FramePage("two")))

	inner, cross := frameAt(t, w, faultrows.FrameInner+"a"), frameAt(t, w, "localhost")
	assert.False(t, inner.OutOfProcess)
	assert.True(t, cross.OutOfProcess, "an iframe of another site, with site isolation")
	for _, f := range []chromedp015guard.FrameInfo{inner, cross} {
		res, err := w.EvalFrame(ctx, f.ID, `(sep) => new Promise(r => {
			const answer = () => r(document.title + sep + typeof mainVar)
			document.readyState == "complete" ? answer() : addEventListener("load", answer)
		})`, " ")
		require.NoError(t, err, "frame %s", f.URL)
		assert.True(t, strings.HasPrefix(str(res), "inner-"), "got %q in %s", str(res), f.URL)
		assert.True(t, strings.HasSuffix(str(res), " undefined"), "the frame's world, not the page's: %q", str(res))
		win, err := w.ReadDOM(ctx, chromedp015guard.DOMOptions{Frame: f.ID, Text: true})
		require.NoError(t, err)
		assert.Contains(t, win.Content, "inner ", "ReadDOM of the frame")
	}

	res, err := w.EvalFrame(ctx, cross.ID, `(a, b) => a.n + b[1]`, map[string]int{"n": 40}, []int{1, 2})
	require.NoError(t, err)
	assert.Equal(t, "42", string(res.Value))
	_, err = w.EvalFrame(ctx, cross.ID, `() => { throw new Error("boom") }`)
	var exc *runtime.ExceptionDetails
	require.ErrorAs(t, err, &exc, "an exception, as Eval returns one")
	assert.Contains(t, err.Error(), "boom")
	_, err = w.EvalFrame(ctx, "NOSUCHFRAME", `() => 1`)
	require.ErrorIs(t, err, chromedp015guard.ErrFrameDetached)
	_, err = w.EvalFrame(ctx, cross.ID, `() => 1`, func() {})
	require.ErrorIs(t, err, chromedp015guard.ErrInvalidArgument)
	obj, err := w.Eval(ctx, `() => document`)
	require.NoError(t, err)
	_, err = w.EvalFrame(ctx, cross.ID, `(d) => d.title`, obj)
	require.ErrorIs(t, err, chromedp015guard.ErrInvalidArgument, "a remote object belongs to its own context")

	detachedOnClose(t, browser, tab, w, cross.ID)

	w, err = bw.Watch(tab)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	res, err = w.EvalFrame(ctx, cross.ID, `() => document.title`)
	require.NoError(t, err, "the frame answers a new watcher")
	assert.Equal(t, "inner-b", str(res))

	crashFrame(t, browser, cross.ID) // returns once Chrome has reported it
	_, err = w.EvalFrame(ctx, cross.ID, `() => 1`)
	require.ErrorIs(t, err, chromedp015guard.ErrFrameCrashed, "at once after Chrome's report")
	res, err = w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the tab lives on")
	assert.Equal(t, `"outer"`, string(res.Value))
	// On chromedp v0.9.5, whose cdproto has no Page.frameStartedNavigating,
	// the reload's commit is told by the new document alone.
	require.NoError(t, w.Reload(ctx))
	res, err = w.EvalFrame(ctx, frameAt(t, w, "localhost").ID, faultrows.TitleWhenLoaded)
	require.NoError(t, err, "after Reload, the frame answers again")
	assert.Equal(t, "inner-b", str(res))
}

// detachedOnClose closes w, which reached frame id through a session of
// its own, and holds that Close detached that session and left the
// frame's target and the tab open. chromedp's cancel of a context of a
// target it attached to would close the target, and an iframe's target
// closes the whole tab.
func detachedOnClose(t *testing.T, browser, tab context.Context, w *chromedp015guard.Watcher, id string) {
	t.Helper()
	// The watcher's session is the browser connection's, told of there;
	// chromedp's own auto-attached one is the page session's.
	var session target.SessionID // set and read on chromedp's reader goroutine
	detached := make(chan struct{}, 1)
	lctx, cancel := context.WithCancel(browser)
	defer cancel()
	chromedp.ListenBrowser(lctx, func(ev any) {
		switch e := ev.(type) {
		case *target.EventAttachedToTarget:
			if e.TargetInfo != nil && e.TargetInfo.TargetID == target.ID(id) {
				session = e.SessionID
			}
		case *target.EventDetachedFromTarget:
			if session != "" && e.SessionID == session {
				select {
				case detached <- struct{}{}:
				default:
				}
			}
		}
	})
	// Detach the frame's session the watcher has, so the next eval
	// attaches one, seen from the start.
	require.NoError(t, w.Close())
	w2, err := chromedp015guard.Watch(tab, nil)
	require.NoError(t, err)
	_, err = w2.EvalFrame(within(t, 10*time.Second), id, `() => 1`)
	require.NoError(t, err)
	require.NoError(t, w2.Close())
	select {
	case <-detached:
	case <-time.After(10 * time.Second):
		t.Fatal("the frame's session was not detached within 10s of Close")
	}
	tctx, tcancel := context.WithTimeout(tab, 10*time.Second)
	defer tcancel()
	infos, err := chromedp.Targets(tctx)
	require.NoError(t, err)
	open := map[target.ID]bool{}
	for _, i := range infos {
		open[i.TargetID] = true
	}
	assert.True(t, open[target.ID(id)], "the iframe's target is still there")
	assert.True(t, open[chromedp.FromContext(tab).Target.TargetID], "the tab is still open")
}

// crashFrame kills an out-of-process iframe's renderer through a chromedp
// context of the frame's own target; Chrome never answers Page.crash. It
// then detaches, and clears the context's Target before its cancel, as the
// driver does: chromedp's cancel would close the target it attached to,
// and an iframe's target closes its tab.
func crashFrame(t *testing.T, browser context.Context, id string) {
	t.Helper()
	lctx, lcancel := context.WithCancel(browser)
	defer lcancel()
	crashed := make(chan struct{}, 1)
	chromedp.ListenBrowser(lctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCrashed); ok && string(e.TargetID) == id {
			select {
			case crashed <- struct{}{}:
			default:
			}
		}
	})
	defer func() {
		// Once Chrome has reported the crash, a call made then must know
		// of it, as a user's would.
		select {
		case <-crashed:
		case <-time.After(10 * time.Second):
			t.Fatal("Chrome reported no crash of the frame within 10s")
		}
	}()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithTargetID(target.ID(id)))
	defer cancel()
	attached := make(chan error, 1)
	go func() { attached <- chromedp.Run(ctx) }() // the first Run, with no deadline: the target lives as long as its context
	select {
	case err := <-attached:
		require.NoError(t, err, "attach to the iframe's target")
	case <-time.After(10 * time.Second):
		t.Fatal("chromedp did not attach to the iframe's target within 10s")
	}
	cctx, ccancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer ccancel()
	_ = chromedp.Run(cctx, chromedp.ActionFunc(func(ctx context.Context) error { return page.Crash().Do(ctx) }))
	c := chromedp.FromContext(ctx)
	dctx, dcancel := context.WithTimeout(browser, 5*time.Second)
	defer dcancel()
	require.NoError(t, chromedp.Run(dctx, chromedp.ActionFunc(func(ctx context.Context) error {
		return target.DetachFromTarget().WithSessionID(c.Target.SessionID).Do(cdp.WithExecutor(ctx, c.Browser))
	})), "detach from the iframe's target")
	c.Target = nil
}

// frameAt returns the frame of w whose URL holds part, once its document
// is there.
func frameAt(t *testing.T, w *chromedp015guard.Watcher, part string) chromedp015guard.FrameInfo {
	t.Helper()
	var found chromedp015guard.FrameInfo
	require.Eventually(t, func() bool {
		for _, f := range w.Frames() {
			if strings.Contains(f.URL, part) && !f.Loading {
				found = f
				return true
			}
		}
		return false
	}, 20*time.Second, 10*time.Millisecond, "a frame at %s", part)
	return found
}

// serveFrames serves faultrows.FramePages, pages with iframes, from
// 127.0.0.1; a stalled iframe's handler returns when t ends.
func serveFrames(t *testing.T) *httptest.Server {
	t.Helper()
	quit := make(chan struct{})
	mux := http.NewServeMux()
	// No page here loads the dead URL, the "dead" page's.
	mux.Handle(faultrows.FramesPrefix, faultrows.FramePages("http://127.0.0.1:1/", quit))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: Close waits for the handlers
	return srv
}

// str is a result's value as a string, or its JSON when it is no string.
func str(res *runtime.RemoteObject) string {
	var s string
	switch {
	case res == nil:
		return "<nil>"
	case json.Unmarshal(res.Value, &s) != nil:
		return string(res.Value)
	}
	return s
}
