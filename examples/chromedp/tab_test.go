package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
)

// openTab opens a tab on the shared browser, follows it and loads a small
// 127.0.0.1 page in it. The tab closes when t ends.
func openTab(t *testing.T) (context.Context, *Tab, string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>ok</title><p>héllo</p>`)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx), "open tab")
	tab, err := Follow(ctx)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(timeout(t, ctx, 10*time.Second), chromedp.Navigate(srv.URL)))
	return ctx, tab, srv.URL + "/"
}

// timeout derives a context of ctx that ends after d or when t ends.
func timeout(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return ctx
}

// crashAndWait kills the tab's renderer and waits until the Tab knows the reason.
func crashAndWait(t *testing.T, ctx context.Context, tab *Tab) {
	t.Helper()
	crash(ctx)
	eventually(t, "the crash", func() bool { return tab.State().CrashReason != "" })
}

// eventually polls cond every 10 ms until it holds or 5 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 5s waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEvalHealthy(t *testing.T) {
	ctx, tab, url := openTab(t)
	s := tab.State()
	assert.True(t, s.Committed, "state: %+v", s)
	assert.Equal(t, url, s.URL)

	title, err := Eval[string](ctx, tab, time.Second, `document.title`)
	require.NoError(t, err)
	assert.Equal(t, "ok", title)
	n, err := Eval[int](ctx, tab, time.Second, `Promise.resolve(40 + 2)`)
	require.NoError(t, err)
	assert.Equal(t, 42, n)
}

func TestEvalTimesOut(t *testing.T) {
	ctx, tab, _ := openTab(t)
	start := time.Now()
	_, err := Eval[int](ctx, tab, 300*time.Millisecond, `new Promise(() => {})`)
	require.ErrorIs(t, err, tabguard.ErrEvalTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "eval timed out after 300ms", err.Error())
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestCrashFailsInFlightAndRefuses(t *testing.T) {
	ctx, tab, url := openTab(t)
	done := make(chan error, 1)
	go func() {
		_, err := Eval[int](ctx, tab, 30*time.Second, `new Promise(r => setTimeout(() => r(1), 20000))`)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the eval reach the renderer
	crashAndWait(t, ctx, tab)
	select {
	case err := <-done:
		require.ErrorIs(t, err, tabguard.ErrTabCrashed)
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight eval still waiting 5s after the crash")
	}

	start := time.Now()
	_, err := Eval[string](ctx, tab, 5*time.Second, `document.title`)
	assert.Less(t, time.Since(start), 100*time.Millisecond, "a refusal must not touch the tab")
	var be *tabguard.BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)", err.Error())
	assert.Equal(t, url, be.URL)

	// Page.reload brings the renderer back, and with it the evals.
	_, err = chromedp.Call(timeout(t, ctx, 10*time.Second), page.Reload, page.ReloadParams{})
	require.NoError(t, err)
	eventually(t, "the reload", func() bool { return tabguard.EvalBlockedReason(tab.State()) == nil })
	href, err := Eval[string](ctx, tab, 5*time.Second, `location.href`) // set at commit, before the body is parsed
	require.NoError(t, err)
	assert.Equal(t, url, href)
}

func TestDeadURLIsRefused(t *testing.T) {
	ctx, tab, _ := openTab(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close()) // nothing listens there now

	require.Error(t, chromedp.Do(timeout(t, ctx, 10*time.Second), chromedp.Navigate(url)))
	eventually(t, "the load error", func() bool { return tab.State().LoadError != "" })
	_, err = Eval[string](ctx, tab, 5*time.Second, `document.title`)
	require.ErrorIs(t, err, tabguard.ErrNoDocument)
	assert.Equal(t, "tab has no document: net::ERR_CONNECTION_REFUSED loading "+url+": navigate again (Watcher.Navigate)", err.Error())
}

func TestClosedTabIsRefused(t *testing.T) {
	ctx, tab, _ := openTab(t)
	require.NoError(t, chromedp.Cancel(ctx))
	eventually(t, "the close", func() bool { return tab.State().Closed })
	_, err := Eval[string](ctx, tab, 5*time.Second, `document.title`)
	require.ErrorIs(t, err, tabguard.ErrTabClosed)
}

func TestFollowNeedsARunContext(t *testing.T) {
	_, err := Follow(context.Background())
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	ctx, cancel := chromedp.NewContext(browserCtx) // no Run yet: no tab
	defer cancel()
	_, err = Follow(ctx)
	require.True(t, errors.Is(err, tabguard.ErrInvalidArgument), "Follow on a context with no tab: %v", err)
}
