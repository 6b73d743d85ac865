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
)

// TestOpenAndCloseTab opens tabs through the BrowserWatcher, follows them
// on Changes, and closes them from the browser side, a crashed one too.
func TestOpenAndCloseTab(t *testing.T) {
	t.Parallel()
	browser := dedicated(t)
	srv := serve(t)
	bw, err := chromedpguard.WatchBrowser(browser, &chromedpguard.Options{URLs: &chromedpguard.URLPolicy{}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	ctx := within(t, 30*time.Second)

	w, err := bw.Open(ctx, srv.URL)
	require.NoError(t, err)
	_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	title, err := chromedp.Run(w.Context(), chromedpguard.Evaluate[string](w, `() => document.title`))
	require.NoError(t, err, "the Watcher's Context runs chromedp actions on the tab")
	assert.Equal(t, "ok", title)

	before := len(bw.Tabs())
	_, err = bw.Open(ctx, "file:///etc/passwd")
	require.ErrorIs(t, err, chromedpguard.ErrURLBlocked)
	assert.Len(t, bw.Tabs(), before, "a blocked URL opens no tab")

	// A popup the page opens is news on Changes; WatchTarget watches it.
	_, err = w.Eval(ctx, `() => { window.open("/?popup"); return 1 }`)
	require.NoError(t, err)
	var popup target.ID
	for popup == "" {
		select {
		case c := <-bw.Changes():
			if c.Kind == chromedpguard.TabOpened && c.Tab.OpenerID == w.TargetID() {
				popup = c.Tab.TargetID
			}
		case <-ctx.Done():
			t.Fatal("no TabOpened for the popup")
		}
	}
	pw, err := bw.WatchTarget(ctx, popup)
	require.NoError(t, err)
	_, err = pw.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	require.NoError(t, pw.CloseTab(ctx))

	// A crashed tab is reported, and closes from the browser side.
	cctx, cancel := context.WithTimeout(w.Context(), 300*time.Millisecond)
	defer cancel()
	_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{})
	for crashed := false; !crashed; {
		select {
		case c := <-bw.Changes():
			crashed = c.Kind == chromedpguard.TabCrashed && c.Tab.TargetID == w.TargetID()
		case <-ctx.Done():
			t.Fatal("no TabCrashed")
		}
	}
	require.NoError(t, w.CloseTab(ctx), "a crashed tab closes from the browser side")
	_, err = w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrWatcherClosed)
	for _, ti := range bw.Tabs() {
		assert.NotEqual(t, w.TargetID(), ti.TargetID, "CloseTab returned with the tab listed")
	}
	// A window of a snapshot says how to read on, as on rod.
	win := chromedpguard.DOMWindow{Content: "abc", Snapshot: "s1", NextOffset: 3, Size: 9}
	assert.Equal(t, "<!-- bytes 0-3 of 9 in snapshot s1 (cut at 3); read on from offset 3 of snapshot s1 -->", win.Notice(3))
}
