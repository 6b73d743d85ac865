package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

func TestBrowserWatcherTabs(t *testing.T) {
	t.Parallel()
	browser := dedicated(t)
	srv := serve(t)
	bw, err := chromedpguard.WatchBrowser(browser, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })

	watched, other := newTab(t, browser), newTab(t, browser)
	w, err := bw.Watch(watched)
	require.NoError(t, err)
	require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL))
	require.NoError(t, chromedp.Do(context.WithoutCancel(other), chromedp.Navigate(srv.URL+"/?other")))
	_, err = bw.Watch(watched)
	require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument, "watched twice")

	otherID := chromedp.FromContext(other).Target.TargetID
	byID := func() map[string]chromedpguard.TabInfo {
		m := map[string]chromedpguard.TabInfo{}
		for _, ti := range bw.Tabs() {
			m[string(ti.TargetID)] = ti
		}
		return m
	}
	tabs := byID()
	require.Contains(t, tabs, string(w.TargetID()))
	require.Contains(t, tabs, string(otherID))
	assert.True(t, tabs[string(w.TargetID())].Watched)
	assert.False(t, tabs[string(otherID)].Watched)
	assert.NoError(t, tabs[string(w.TargetID())].Refusal)

	// A crash of a tab no watcher follows shows from the browser's events.
	cctx, cancel := context.WithTimeout(other, 300*time.Millisecond)
	defer cancel()
	_, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{})
	eventually(t, "the crash in Tabs", func() bool { return byID()[string(otherID)].State.Crashed })
	assert.ErrorIs(t, byID()[string(otherID)].Refusal, chromedpguard.ErrTabCrashed)
	assert.Nil(t, w.Blocked(within(t, 5*time.Second)), "the watched tab is fine")

	// Closing a tab drops it from the list.
	require.NoError(t, chromedp.Cancel(other))
	eventually(t, "the closed tab to go", func() bool { _, ok := byID()[string(otherID)]; return !ok })

	require.NoError(t, bw.Close())
	_, err = w.Eval(within(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrWatcherClosed, "closing the BrowserWatcher closes its watchers")
}

func TestWatchBadInput(t *testing.T) {
	t.Parallel()
	_, err := chromedpguard.Watch(context.Background(), nil)
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	_, err = chromedpguard.WatchBrowser(context.Background(), nil)
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	actx, cancel := chromedp.NewExecAllocator(context.Background())
	defer cancel()
	_, err = chromedpguard.WatchBrowser(actx, nil)
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument, "no browser yet")
}
