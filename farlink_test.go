package tabguard_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// keepAndLoop marks the page, so that a recovery can be seen to keep it,
// then holds its main thread in a loop.
const keepAndLoop = `() => { window.kept = 42; setTimeout(() => { for (;;) {} }, 0); return 1 }`

// farTab is a tab of its own Chromium, reached through a proxy that delays
// each direction by oneWay, watched with opts: the proxy, rod's page of the
// tab and its watcher.
func farTab(t *testing.T, oneWay time.Duration, opts *tabguard.Options, bound time.Duration) (*faultproxy.Proxy, *rod.Page, *tabguard.Watcher) {
	t.Helper()
	remote := startRemoteChromium(t)
	host := strings.TrimPrefix(remote.wsURL, "ws://")
	p := faultproxy.Start(t, host[:strings.IndexByte(host, '/')], func(p *faultproxy.Proxy) { p.Delay = oneWay })
	ctx := testbrowser.Context(t, bound)
	b := rod.New().ControlURL(p.URL(remote.wsURL)).Context(ctx)
	require.NoError(t, b.Connect())
	bw := watchBrowser(t, b, opts)
	target, err := proto.TargetCreateTarget{URL: serve(t).URL}.Call(b)
	require.NoError(t, err)
	page, err := b.PageFromTarget(target.TargetID)
	require.NoError(t, err)
	w, err := bw.Watch(page)
	require.NoError(t, err)
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	return p, page, w
}

// shortDeadlineRow loops w's page and evaluates on it with a deadline of
// 400 ms: the timeout names no hung renderer and no silent link, which it
// cannot have proven in that time, and Recover after it keeps the page.
// It returns the cause the timeout named.
func shortDeadlineRow(t *testing.T, w *tabguard.Watcher, bound time.Duration) tabguard.TimeoutCause {
	t.Helper()
	_, err := w.Eval(testbrowser.Context(t, bound), keepAndLoop)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(testbrowser.Context(t, bound), 400*time.Millisecond)
	defer cancel()
	_, err = w.Eval(ctx, `() => 1`)
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.NotContains(t, []tabguard.TimeoutCause{tabguard.TimeoutHung, tabguard.TimeoutSilent}, te.Cause, te.Error())

	r, err := w.Recover(testbrowser.Context(t, bound))
	require.NoError(t, err, r.String())
	assert.Equal(t, tabguard.TerminatedScript, r.Action, r.String())
	kept, err := w.Eval(testbrowser.Context(t, bound), `() => window.kept`)
	require.NoError(t, err)
	assert.Equal(t, 42, kept.Value.Int(), "the page's state is kept")
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
		w := watch(t, testbrowser.Page(t), nil)
		causes := map[tabguard.TimeoutCause]int{}
		for range tries {
			causes[shortDeadlineRow(t, w, 30*time.Second)]++
		}
		t.Logf("causes named in %d tries: %v", tries, causes)
	})
	t.Run("150ms one way", func(t *testing.T) {
		t.Parallel()
		_, _, w := farTab(t, 150*time.Millisecond, nil, time.Minute)
		causes := map[tabguard.TimeoutCause]int{}
		for range min(tries, 3) {
			causes[shortDeadlineRow(t, w, time.Minute)]++
		}
		t.Logf("causes named: %v", causes)
	})
}

// TestFarLink holds the guard's answers through links that delay each
// direction by 1 s and by 2 s, each in a Chromium of its own, side by
// side: an idle watcher with a 2 s heartbeat still evaluates after 60 s; a
// looping script's timeout names the busy script; a 400 ms deadline on it
// names neither a hung renderer nor a silent link, and Recover keeps the
// page; a hung renderer's timeout names the hang, and Recover brings the
// tab back; a link that goes silent fails the watcher with ErrBrowserGone,
// within the heartbeat's interval and its bound. The eval timeout is 30 s:
// proving a hang takes three round trips of the link (12 s at 2 s one
// way), and the probes have at most half the call's time.
func TestFarLink(t *testing.T) {
	faultrows.SlowRow(t, "internal/engine's TestHeartbeatOverASlowLink, TestBusyScriptOverAFarLink and TestShortDeadlineNamesNoUnprovenCause")
	t.Parallel()
	const heartbeat = 2 * time.Second
	var wg sync.WaitGroup
	for _, oneWay := range []time.Duration{time.Second, 2 * time.Second} {
		wg.Add(1)
		go func() { // side by side: the links are idle, not the machine
			defer wg.Done()
			t.Run(fmt.Sprint(oneWay, " one way"), func(t *testing.T) {
				farLinkRows(t, oneWay, heartbeat)
			})
		}()
	}
	wg.Wait()
}

// farLinkRows are TestFarLink's rows at one delay.
func farLinkRows(t *testing.T, oneWay, heartbeat time.Duration) {
	const bound = 8 * time.Minute
	opts := &tabguard.Options{EvalTimeout: 30 * time.Second, Heartbeat: heartbeat}
	p, page, w := farTab(t, oneWay, opts, bound)

	time.Sleep(time.Minute) // idle, the heartbeat alone on the link
	v, err := w.Eval(testbrowser.Context(t, bound), `() => 1 + 1`)
	require.NoError(t, err, "an idle watcher with a heartbeat still evaluates after 60s")
	assert.Equal(t, 2, v.Value.Int())

	_, err = w.Eval(testbrowser.Context(t, bound), keepAndLoop)
	require.NoError(t, err)
	start := time.Now()
	_, err = w.Eval(testbrowser.Context(t, bound), `() => 1`)
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabguard.TimeoutBusyScript, te.Cause, te.Error())
	t.Logf("a looping script's timeout: %v, after %v", te.Cause, time.Since(start).Round(time.Millisecond))
	r, err := w.Recover(testbrowser.Context(t, bound))
	require.NoError(t, err, r.String())
	assert.Equal(t, tabguard.TerminatedScript, r.Action)

	t.Logf("400ms deadline: %v", shortDeadlineRow(t, w, bound))

	go func() { _ = page.Context(testbrowser.Context(t, bound)).Navigate("chrome://hang") }()
	eventually(t, "the renderer to hang", func() bool {
		info, err := proto.TargetGetTargetInfo{TargetID: page.TargetID}.Call(page.Browser().Context(testbrowser.Context(t, time.Minute)))
		return err == nil && info.TargetInfo.URL == "chrome://hang/"
	})
	start = time.Now()
	_, err = w.Eval(testbrowser.Context(t, bound), `() => 1`)
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tabguard.TimeoutHung, te.Cause, te.Error())
	t.Logf("a hung renderer's timeout: %v, after %v", te.Cause, time.Since(start).Round(time.Millisecond))
	r, err = w.Recover(testbrowser.Context(t, bound))
	require.NoError(t, err, r.String())
	assert.Equal(t, tabguard.CrashedAndReloaded, r.Action)
	v, err = w.Eval(testbrowser.Context(t, bound), `() => 1 + 1`)
	require.NoError(t, err, "the tab answers again")
	assert.Equal(t, 2, v.Value.Int())

	p.StallAll()
	start = time.Now()
	s, err := w.Wait(testbrowser.Context(t, bound), func(s tabguard.TabState) bool { return s.BrowserGone })
	require.NoError(t, err)
	faultrows.HeartbeatMiss(t, s.GoneReason, 2*time.Second)
	t.Logf("a silent link: %q after %v", s.GoneReason, time.Since(start).Round(time.Millisecond))
	_, err = w.Eval(testbrowser.Context(t, bound), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrBrowserGone)
}
