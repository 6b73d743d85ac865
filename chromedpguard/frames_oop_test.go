package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// An out-of-process iframe is reached through a chromedp context of its
// own target: these tests check that it answers again after its renderer
// crashed and the tab reloaded, and that its session is detached on
// Close, leaving the frame and the tab open.

// TestEvalFrameCrashRecovery crashes an out-of-process iframe: the frame is
// refused, the tab answers, and after Reload the frame answers again. The
// browser is its own, as the crash takes the site's iframes of every tab.
func TestEvalFrameCrashRecovery(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	browser := dedicatedIsolated(t)
	_, w := framePage(t, browser, srv, "cross", 1)
	f := frameAt(t, w, "localhost")
	require.True(t, f.OutOfProcess)
	ctx := within(t, 10*time.Second)
	res, err := w.EvalFrame(ctx, f.ID, faultrows.TitleWhenLoaded)
	require.NoError(t, err, "the frame answers through its own session")
	assert.Equal(t, "inner-b", str(res))

	crashFrame(t, browser, f.ID)
	_, err = w.EvalFrame(ctx, f.ID, `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrFrameCrashed, "at once after Chrome's report, the session attached before the crash unused")
	require.ErrorIs(t, w.Frames()[0].Refusal, chromedpguard.ErrFrameCrashed)
	res, err = w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the tab lives on")
	assert.Equal(t, "outer", str(res))

	require.NoError(t, w.Reload(ctx))
	again := frameAt(t, w, "localhost")
	res, err = w.EvalFrame(ctx, again.ID, faultrows.TitleWhenLoaded)
	require.NoError(t, err, "after Reload, the frame answers again")
	assert.Equal(t, "inner-b", str(res))
}

// TestEvalFrameDetachOnClose reaches an out-of-process iframe through a
// session of its own, from a watcher of a BrowserWatcher that outlives it:
// the watcher's Close detaches that session, and leaves the frame's
// target and the tab open, as chromedp's cancel of a target it attached
// to would not (it closes the target, and an iframe's target closes the
// whole tab).
func TestEvalFrameDetachOnClose(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	browser := sharedIsolated(t)
	tab := newTab(t, browser)
	bw, err := chromedpguard.WatchBrowser(tab, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	w, err := bw.Watch(tab)
	require.NoError(t, err)
	require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL+faultrows.FramePage("cross")))
	f := frameAt(t, w, "localhost")
	require.True(t, f.OutOfProcess)

	// The session the watcher attaches is the browser connection's, told
	// of there; chromedp's own auto-attached one is the page session's.
	var session target.SessionID // set and read on chromedp's reader goroutine
	detached := make(chan struct{}, 1)
	lctx, cancel := context.WithCancel(browser)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.ListenBrowser(lctx, func(ev any) {
		switch e := ev.(type) {
		case *target.EventAttachedToTarget:
			if e.TargetInfo != nil && e.TargetInfo.TargetID == target.ID(f.ID) {
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
	}))
	res, err := w.EvalFrame(within(t, 10*time.Second), f.ID, faultrows.TitleWhenLoaded)
	require.NoError(t, err)
	assert.Equal(t, "inner-b", str(res))

	require.NoError(t, w.Close())
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
	assert.True(t, open[target.ID(f.ID)], "the iframe's target is still there")
	assert.True(t, open[chromedp.FromContext(tab).Target.TargetID], "the tab is still open")

	again, err := bw.Watch(tab)
	require.NoError(t, err)
	t.Cleanup(func() { _ = again.Close() })
	res, err = again.EvalFrame(within(t, 10*time.Second), frameAt(t, again, "localhost").ID, `() => document.title`)
	require.NoError(t, err, "the frame answers a new watcher")
	assert.Equal(t, "inner-b", str(res))
}

// crashFrame kills an out-of-process iframe's renderer, on the browser of
// browser, through a chromedp context of the frame's own target, which it
// detaches from, leaving the tab open; Chrome never answers Page.crash.
func crashFrame(t *testing.T, browser context.Context, id string) {
	t.Helper()
	lctx, lcancel := context.WithCancel(browser)
	defer lcancel()
	crashed := make(chan struct{}, 1)
	require.NoError(t, chromedp.ListenBrowser(lctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCrashed); ok && string(e.TargetID) == id {
			select {
			case crashed <- struct{}{}:
			default:
			}
		}
	}))
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
	defer cancel()
	attachWithin(t, ctx, 10*time.Second)
	cctx, ccancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer ccancel()
	_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{}) // no reply is the expected outcome
	// Once Chrome has reported the crash, a call made then must know of
	// it, as a user's would.
	select {
	case <-crashed:
	case <-time.After(10 * time.Second):
		t.Fatal("Chrome reported no crash of the frame within 10s")
	}
}
