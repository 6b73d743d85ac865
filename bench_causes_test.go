//go:build go1.24

package tabguard_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// BenchmarkHeartbeat times healthy evals on one tab while a heartbeat
// runs on the connection beside while none does: the plain watcher's evals
// in blocks of 50, and a BrowserWatcher with a 100 ms heartbeat (twenty
// times more often than the 2-5 s of docs/remote.md) started before every other
// block and closed after it. Each figure is a median; the heartbeat's cost
// is the ratio of the blocks with it to the blocks without, beside the
// ratio of the blocks without to one another (A/A), which shows the noise.
func BenchmarkHeartbeat(b *testing.B) {
	const block = 50
	br := benchBrowser(b)
	page := benchPage(b, br, serve(b).URL)
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 10*time.Minute)
	eval := func() time.Duration {
		return benchutil.Time(func() {
			res, err := w.Eval(ctx, `() => 1`)
			if err != nil || res.Value.Int() != 1 {
				b.Fatalf("Watcher.Eval() = %v, %v; want 1", res, err)
			}
		})
	}
	for range 50 {
		eval()
	}
	var with, without, odd, even benchutil.Samples
	var bw *tabguard.BrowserWatcher
	i := 0
	for b.Loop() {
		beating := (i/block)%2 == 1
		if i%block == 0 {
			if bw != nil {
				_ = bw.Close()
				bw = nil
			}
			if beating {
				var err error
				if bw, err = tabguard.WatchBrowser(br.Browser, &tabguard.Options{Heartbeat: 100 * time.Millisecond}); err != nil {
					b.Fatalf("WatchBrowser: %v", err)
				}
			}
		}
		d := eval()
		switch {
		case beating:
			with = append(with, d)
		case (i/(2*block))%2 == 0:
			without, even = append(without, d), append(even, d)
		default:
			without, odd = append(without, d), append(odd, d)
		}
		i++
	}
	if bw != nil {
		_ = bw.Close()
	}
	report(b, map[string]float64{
		"heartbeat-p50-ratio": benchutil.Ratio(with.Quantile(0.5), without.Quantile(0.5)),
		"aa-p50-ratio":        benchutil.Ratio(odd.Quantile(0.5), even.Quantile(0.5)),
		"with-p50-us":         benchutil.Us(with.Quantile(0.5)),
		"without-p50-us":      benchutil.Us(without.Quantile(0.5)),
	})
}

// causeTimes is what telling each cause took over one link, and what the
// short deadline named.
type causeTimes struct {
	busy, hung, silent benchutil.Samples
	unproven           int // 400 ms deadlines that named a hung renderer or a silent link
	tries              int
}

// BenchmarkCauseOverLink times what each cause of a stuck tab takes to
// tell, through a proxy that delays each direction by 150 ms and by
// 500 ms, in round trips of the link (RTT, twice the delay), with a 1 s
// heartbeat and default Options otherwise. Each iteration, at each delay,
// connects anew, watches a loaded tab, and then: Recover on a page whose
// script loops (it asks the page, finds the script and stops it: busy);
// a 400 ms deadline on the looping page (it must name neither a hung
// renderer nor a silent link, which it has no time to prove); Recover on a
// renderer hung outside JavaScript (chrome://hang; it proves the hang once
// the probe window, the patience (1 s) or three round trips,
// passed with only the browser answering, then crashes and reloads: hung);
// and a proxy that stops forwarding (the heartbeat finds the silence within
// its interval and one bound, the interval or three round trips: silent).
func BenchmarkCauseOverLink(b *testing.B) {
	br := benchBrowser(b)
	url := serve(b).URL
	host := strings.TrimPrefix(br.URL, "ws://")
	host = host[:strings.IndexByte(host, '/')]
	delays := []time.Duration{150 * time.Millisecond, 500 * time.Millisecond}
	times := make([]causeTimes, len(delays))
	for b.Loop() {
		for i, d := range delays {
			causesOver(b, br, host, url, d, &times[i])
		}
	}
	m := map[string]float64{}
	worst := map[string]float64{}
	const heartbeat = time.Second
	for i, d := range delays {
		rtt, at := 2*d, fmt.Sprintf("%dms", d.Milliseconds())
		bound := heartbeat + max(heartbeat, 3*rtt)
		for _, c := range []struct {
			name string
			s    benchutil.Samples
			over time.Duration
		}{{"busy", times[i].busy, rtt}, {"hung", times[i].hung, rtt}, {"silent", times[i].silent, rtt}} {
			v := benchutil.Ratio(c.s.Quantile(0.5), c.over)
			m[c.name+"-"+at+"-rtt"] = v
			worst[c.name] = max(worst[c.name], v)
		}
		s := benchutil.Ratio(times[i].silent.Quantile(1), bound)
		m["silent/bound-"+at] = s
		worst["silent/bound"] = max(worst["silent/bound"], s)
		m["unproven-named-"+at] = float64(times[i].unproven)
		worst["unproven-named"] += float64(times[i].unproven)
	}
	m["busy-max-rtt"] = worst["busy"]
	m["silent/bound-max"] = worst["silent/bound"]
	m["unproven-named"] = worst["unproven-named"]
	m["tries-each"] = float64(times[0].tries)
	report(b, m)
}

// causesOver makes one round of BenchmarkCauseOverLink at one delay.
func causesOver(b *testing.B, br *testbrowser.Browser, host, url string, d time.Duration, ct *causeTimes) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := faultproxy.Start(b, host, func(p *faultproxy.Proxy) { p.Delay = d })
	rb := rod.New().ControlURL(p.URL(br.URL)).Context(ctx)
	if err := rb.Connect(); err != nil {
		b.Fatalf("rod connect through the proxy: %v", err)
	}
	bw, err := tabguard.WatchBrowser(rb, &tabguard.Options{Heartbeat: time.Second})
	if err != nil {
		b.Fatalf("WatchBrowser at %v one way: %v", d, err)
	}
	defer func() { _ = bw.Close() }()
	page, err := rb.Page(proto.TargetCreateTarget{URL: url})
	if err != nil {
		b.Fatalf("open a tab at %v one way: %v", d, err)
	}
	defer closeTab(br, page.TargetID)
	w, err := bw.Watch(page)
	if err != nil {
		b.Fatalf("bw.Watch at %v one way: %v", d, err)
	}
	if _, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded }); err != nil {
		b.Fatalf("load at %v one way: %v", d, err)
	}
	ct.tries++

	if _, err := w.Eval(ctx, keepAndLoop); err != nil {
		b.Fatalf("start the loop: %v", err)
	}
	var r tabguard.Recovery
	ct.busy = append(ct.busy, benchutil.Time(func() { r, err = w.Recover(ctx) }))
	if err != nil || r.Action != tabguard.TerminatedScript {
		b.Fatalf("Recover on a looping page at %v one way = %v, %v; want %q", d, r, err, tabguard.TerminatedScript)
	}

	if _, err := w.Eval(ctx, keepAndLoop); err != nil {
		b.Fatalf("start the loop: %v", err)
	}
	short, cancelShort := context.WithTimeout(ctx, 400*time.Millisecond)
	_, err = w.Eval(short, `() => 1`)
	cancelShort()
	if te, ok := err.(*tabguard.TimeoutError); !ok {
		b.Fatalf("a 400 ms deadline on a looping page at %v one way: %v; want a *TimeoutError", d, err)
	} else if te.Cause == tabguard.TimeoutHung || te.Cause == tabguard.TimeoutSilent {
		b.Logf("a 400 ms deadline at %v one way named what it cannot have proven: %v", d, te)
		ct.unproven++
	}
	if r, err = w.Recover(ctx); err != nil || r.Action != tabguard.TerminatedScript {
		b.Fatalf("Recover after the short deadline at %v one way = %v, %v; want %q", d, r, err, tabguard.TerminatedScript)
	}

	// Hung over the browser's own connection, which has no delay, so the
	// hang is there at once; told through the link.
	direct := br.Context(ctx)
	hangs, err := direct.PageFromTarget(page.TargetID)
	if err != nil {
		b.Fatalf("the tab over the browser's own connection: %v", err)
	}
	go func() { _, _ = proto.PageNavigate{URL: "chrome://hang"}.Call(hangs) }()
	for {
		info, err := proto.TargetGetTargetInfo{TargetID: page.TargetID}.Call(direct)
		if err == nil && info.TargetInfo.URL == "chrome://hang/" {
			break
		}
		if ctx.Err() != nil {
			b.Fatalf("the renderer at %v one way did not hang: %v", d, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ct.hung = append(ct.hung, benchutil.Time(func() { r, err = w.Recover(ctx) }))
	if err != nil || r.Action != tabguard.CrashedAndReloaded {
		b.Fatalf("Recover on a hung renderer at %v one way = %v, %v; want %q", d, r, err, tabguard.CrashedAndReloaded)
	}

	p.StallAll()
	start := time.Now()
	s, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.BrowserGone })
	ct.silent = append(ct.silent, time.Since(start))
	if err != nil || !strings.HasPrefix(s.GoneReason, "no answer from the browser for ") {
		b.Fatalf("a silent link at %v one way: %q, %v", d, s.GoneReason, err)
	}
	p.ResetAll()
}
