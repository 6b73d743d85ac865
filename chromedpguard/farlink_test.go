package chromedpguard_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// keepAndLoop marks the page, so that a recovery can be seen to keep it,
// then holds its main thread in a loop.
const keepAndLoop = `() => { window.kept = 42; setTimeout(() => { for (;;) {} }, 0); return 1 }`

// farTab is a loaded tab of the shared remote Chromium, reached through a
// proxy that delays each direction by oneWay, watched with opts: the
// proxy, chromedp's context of the tab and its watcher.
func farTab(t *testing.T, oneWay time.Duration, opts *chromedpguard.Options, bound time.Duration) (*faultproxy.Proxy, context.Context, *chromedpguard.Watcher) {
	t.Helper()
	remote := sharedRemote(t)
	p := faultproxy.Start(t, remote.host, func(p *faultproxy.Proxy) { p.Delay = oneWay })
	actx, cancelAlloc := chromedpguard.NewRemoteAllocator(context.Background(), p.URL(remote.wsURL))
	t.Cleanup(cancelAlloc)
	tab, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(cancel)
	// The tab's own context: chromedp closes a tab whose first Run's
	// context ends. bound bounds the wait for it all the same.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(tab) }()
	select {
	case err := <-opened:
		require.NoError(t, err, "connect and open a tab")
	case <-time.After(bound):
		cancel() // ends the Run, which the cleanup of t waits for no longer
		t.Fatalf("chromedp did not connect and open a tab within %v", bound)
	}
	ctx, cancelStart := context.WithTimeout(tab, bound)
	defer cancelStart()
	bw, err := chromedpguard.WatchBrowser(tab, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	w, err := bw.Watch(tab)
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: serve(t).URL})
	require.NoError(t, err)
	_, err = w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	return p, tab, w
}

// shortDeadlineRow loops w's page and evaluates on it with a deadline of
// 400 ms: the timeout names no hung renderer and no silent link, which it
// cannot have proven in that time, and Recover after it keeps the page.
// It returns the cause the timeout named.
func shortDeadlineRow(t *testing.T, w *chromedpguard.Watcher, bound time.Duration) chromedpguard.TimeoutCause {
	t.Helper()
	_, err := w.Eval(within(t, bound), keepAndLoop)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(within(t, bound), 400*time.Millisecond)
	defer cancel()
	_, err = w.Eval(ctx, `() => 1`)
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.NotContains(t, []chromedpguard.TimeoutCause{chromedpguard.TimeoutHung, chromedpguard.TimeoutSilent}, te.Cause, te.Error())

	r, err := w.Recover(within(t, bound))
	require.NoError(t, err, r.String())
	assert.Equal(t, chromedpguard.TerminatedScript, r.Action, r.String())
	kept, err := w.Eval(within(t, bound), `() => window.kept`)
	require.NoError(t, err)
	assert.Equal(t, "42", string(kept.Value), "the page's state is kept")
	return te.Cause
}

// TestShortDeadlineOnALoopingPage holds that a 400 ms deadline on a page
// whose script loops never names a cause its probes had no time to prove,
// on a local browser (make test runs beside busy loops in CI) and through
// a link that delays each direction by 150 ms, and that Recover after it
// stops the script, keeping the page.
func TestShortDeadlineOnALoopingPage(t *testing.T) {
	t.Parallel()
	tries := 3
	if faultrows.Full() {
		tries = 20
	}
	t.Run("local", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", nil)
		causes := map[chromedpguard.TimeoutCause]int{}
		for range tries {
			causes[shortDeadlineRow(t, f.w, 30*time.Second)]++
		}
		t.Logf("causes named in %d tries: %v", tries, causes)
	})
	t.Run("150ms one way", func(t *testing.T) {
		t.Parallel()
		_, _, w := farTab(t, 150*time.Millisecond, nil, time.Minute)
		causes := map[chromedpguard.TimeoutCause]int{}
		for range min(tries, 3) {
			causes[shortDeadlineRow(t, w, time.Minute)]++
		}
		t.Logf("causes named: %v", causes)
	})
}

// TestFarLink holds the guard's answers through links that delay each
// direction by 1 s and by 2 s, side by side: an idle watcher with a 2 s
// heartbeat still evaluates after 60 s; a looping script's timeout names
// the busy script; a 400 ms deadline on it names neither a hung renderer
// nor a silent link, and Recover keeps the page; a hung renderer's timeout
// names the hang, and Recover brings the tab back; a link that goes silent
// fails the watcher with ErrBrowserGone, within the heartbeat's interval
// and its bound. The eval timeout is 30 s: proving a hang takes three
// round trips of the link (12 s at 2 s one way), and the probes have at
// most half the call's time.
func TestFarLink(t *testing.T) {
	faultrows.SlowRow(t, "internal/engine's TestHeartbeatOverASlowLink, TestBusyScriptOverAFarLink and TestShortDeadlineNamesNoUnprovenCause")
	t.Parallel()
	var wg sync.WaitGroup
	for _, oneWay := range []time.Duration{time.Second, 2 * time.Second} {
		wg.Add(1)
		go func() { // side by side: the links are idle, not the machine
			defer wg.Done()
			t.Run(fmt.Sprint(oneWay, " one way"), func(t *testing.T) { farLinkRows(t, oneWay) })
		}()
	}
	wg.Wait()
}

// farLinkRows are TestFarLink's rows at one delay.
func farLinkRows(t *testing.T, oneWay time.Duration) {
	const bound = 8 * time.Minute
	opts := &chromedpguard.Options{EvalTimeout: 30 * time.Second, Heartbeat: 2 * time.Second}
	p, tab, w := farTab(t, oneWay, opts, bound)

	time.Sleep(time.Minute) // idle, the heartbeat alone on the link
	v, err := w.Eval(within(t, bound), `() => 1 + 1`)
	require.NoError(t, err, "an idle watcher with a heartbeat still evaluates after 60s")
	assert.Equal(t, "2", string(v.Value))

	_, err = w.Eval(within(t, bound), keepAndLoop)
	require.NoError(t, err)
	start := time.Now()
	_, err = w.Eval(within(t, bound), `() => 1`)
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, chromedpguard.TimeoutBusyScript, te.Cause, te.Error())
	t.Logf("a looping script's timeout: %v, after %v", te.Cause, time.Since(start).Round(time.Millisecond))
	r, err := w.Recover(within(t, bound))
	require.NoError(t, err, r.String())
	assert.Equal(t, chromedpguard.TerminatedScript, r.Action)

	t.Logf("400ms deadline: %v", shortDeadlineRow(t, w, bound))

	go func() {
		ctx, cancel := context.WithTimeout(tab, bound)
		defer cancel()
		_, _ = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: "chrome://hang"})
	}()
	eventually(t, "the renderer to hang", func() bool {
		ctx, cancel := context.WithTimeout(tab, time.Minute)
		defer cancel()
		info, err := chromedp.CallBrowser(ctx, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: w.TargetID()})
		return err == nil && info.TargetInfo.URL == "chrome://hang/"
	})
	start = time.Now()
	_, err = w.Eval(within(t, bound), `() => 1`)
	require.ErrorAs(t, err, &te)
	assert.Equal(t, chromedpguard.TimeoutHung, te.Cause, te.Error())
	t.Logf("a hung renderer's timeout: %v, after %v", te.Cause, time.Since(start).Round(time.Millisecond))
	r, err = w.Recover(within(t, bound))
	require.NoError(t, err, r.String())
	assert.Equal(t, chromedpguard.CrashedAndReloaded, r.Action)
	v, err = w.Eval(within(t, bound), `() => 1 + 1`)
	require.NoError(t, err, "the tab answers again")
	assert.Equal(t, "2", string(v.Value))

	p.StallAll()
	start = time.Now()
	s, err := w.Wait(within(t, bound), func(s chromedpguard.TabState) bool { return s.BrowserGone })
	require.NoError(t, err)
	faultrows.HeartbeatMiss(t, s.GoneReason, 2*time.Second)
	t.Logf("a silent link: %q after %v", s.GoneReason, time.Since(start).Round(time.Millisecond))
	_, err = w.Eval(within(t, bound), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrBrowserGone)
}
