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

// startBound bounds one start over the link, rod's calls and the cleanup
// included: at 1 s one way a start makes about fifteen round trips of two
// seconds, and a loaded machine adds to each.
const startBound = 2 * time.Minute

// startTimes is what one start over a slow link took, step by step, and
// the error of the library's step that failed, if one did.
type startTimes struct {
	rodConnect, watchBrowser, rodOpen, watch, firstEval, rodEval time.Duration
	err                                                          error
}

// startSamples gathers the starts at one delay.
type startSamples struct {
	rodConnect, watchBrowser, rodOpen, watch, firstEval, rodEval benchutil.Samples
	failed                                                       int
}

func (s *startSamples) add(st startTimes) {
	if st.err != nil {
		s.failed++
		return
	}
	s.rodConnect = append(s.rodConnect, st.rodConnect)
	s.watchBrowser = append(s.watchBrowser, st.watchBrowser)
	s.rodOpen = append(s.rodOpen, st.rodOpen)
	s.watch = append(s.watch, st.watch)
	s.firstEval = append(s.firstEval, st.firstEval)
	s.rodEval = append(s.rodEval, st.rodEval)
}

// BenchmarkStartLatency times a program's start over a slow link to the
// browser, in round trips of the link, beside rod's own steps over the same
// link. A proxy in front of the browser delays each direction by 50, 150,
// 300, 500 and 1000 ms. Each iteration makes one start at each delay, with
// default Options: rod connects through the proxy (rod's connect), then
// WatchBrowser; rod opens a tab at a small page (rod's open), then
// bw.Watch; then the first Watcher.Eval, then rod's own first page.Eval on
// the same tab. Each figure is a median over the iterations, divided by the
// round trip (twice the delay); a step of the library that fails counts as
// a failed start, and its start gives no figure.
func BenchmarkStartLatency(b *testing.B) {
	br := benchBrowser(b)
	url := serve(b).URL
	host := strings.TrimPrefix(br.URL, "ws://")
	host = host[:strings.IndexByte(host, '/')]
	delays := []time.Duration{50 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond, 500 * time.Millisecond, time.Second}
	proxies := make([]*faultproxy.Proxy, len(delays))
	for i, d := range delays {
		proxies[i] = faultproxy.Start(b, host, func(p *faultproxy.Proxy) { p.Delay = d })
	}
	// Chrome's first tab and the page's first load cost more than the rest.
	if st := startOver(b, br, proxies[0], url); st.err != nil {
		b.Logf("warm-up start at %v: %v", delays[0], st.err)
	}
	samples := make([]startSamples, len(delays))
	for b.Loop() {
		for i, p := range proxies {
			st := startOver(b, br, p, url)
			if st.err != nil {
				b.Logf("start at %v one way failed: %v", delays[i], st.err)
			}
			samples[i].add(st)
		}
	}
	reportStarts(b, delays, samples)
}

// startOver makes one start through p and returns what each step took. It
// ends by dropping the connection and closing the tab, so nothing of one
// start weighs on the next.
func startOver(b *testing.B, br *testbrowser.Browser, p *faultproxy.Proxy, url string) (st startTimes) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	var (
		rb   = rod.New().ControlURL(p.URL(br.URL)).Context(ctx)
		bw   *tabguard.BrowserWatcher
		page *rod.Page
		err  error
	)
	defer func() {
		// Drop the link first, as a client that goes away does: rod's
		// goroutines end with it, and what bw.Close hands back has no
		// round trip left to wait for. Chrome drops the connection's
		// permission settings with it.
		p.ResetAll()
		if page != nil {
			closeTab(br, page.TargetID)
		}
		if bw != nil {
			_ = bw.Close()
		}
	}()
	if st.rodConnect = benchutil.Time(func() { err = rb.Connect() }); err != nil {
		b.Fatalf("rod connect through the proxy: %v", err)
	}
	if st.watchBrowser = benchutil.Time(func() { bw, err = tabguard.WatchBrowser(rb, nil) }); err != nil {
		st.err = fmt.Errorf("WatchBrowser: %w", err)
		return st
	}
	if st.rodOpen = benchutil.Time(func() { page, err = rb.Page(proto.TargetCreateTarget{URL: url}) }); err != nil {
		b.Fatalf("rod open a tab through the proxy: %v", err)
	}
	var w *tabguard.Watcher
	if st.watch = benchutil.Time(func() { w, err = bw.Watch(page) }); err != nil {
		st.err = fmt.Errorf("bw.Watch: %w", err)
		return st
	}
	var res *proto.RuntimeRemoteObject
	if st.firstEval = benchutil.Time(func() { res, err = w.Eval(ctx, `() => 1 + 1`) }); err != nil || res.Value.Int() != 2 {
		st.err = fmt.Errorf("first Watcher.Eval = %v, %w; want 2", res, err)
		return st
	}
	if st.rodEval = benchutil.Time(func() { res, err = page.Eval(`() => 1 + 1`) }); err != nil || res.Value.Int() != 2 {
		b.Fatalf("rod page.Eval() = %v, %v; want 2", res, err)
	}
	return st
}

// closeTab closes a tab over the browser's own connection, which has no
// delay, within 5 s.
func closeTab(br *testbrowser.Browser, id proto.TargetTargetID) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = proto.TargetCloseTarget{TargetID: id}.Call(br.Context(ctx))
}

// reportStarts reports, per delay, each step's median in round trips and
// the failed starts; and, over the delays, the worst median of each step
// of the library, which the goals hold at every delay.
func reportStarts(b *testing.B, delays []time.Duration, samples []startSamples) {
	m := map[string]float64{}
	worst := map[string]float64{}
	failed, complete := 0, true
	for i, d := range delays {
		s, rtt := samples[i], 2*d
		at := fmt.Sprintf("%dms", d.Milliseconds())
		m["failed-starts-"+at] = float64(s.failed)
		failed += s.failed
		if len(s.watchBrowser) == 0 {
			complete = false // no figure at d: the goals read it as missed
			continue
		}
		steps := []struct {
			name string
			s    benchutil.Samples
		}{
			{"watchbrowser", s.watchBrowser}, {"watch", s.watch}, {"firsteval", s.firstEval},
			{"rodconnect", s.rodConnect}, {"rodopen", s.rodOpen}, {"rodeval", s.rodEval},
		}
		for _, st := range steps {
			v := benchutil.Ratio(st.s.Quantile(0.5), rtt)
			m[st.name+"-"+at+"-rtt"] = v
			worst[st.name+"-max-rtt"] = max(worst[st.name+"-max-rtt"], v)
		}
		m["watchbrowser/rodconnect-"+at] = benchutil.Ratio(s.watchBrowser.Quantile(0.5), s.rodConnect.Quantile(0.5))
	}
	if complete { // a worst over some of the delays would hide the others
		for _, name := range []string{"watchbrowser", "watch", "firsteval"} {
			m[name+"-max-rtt"] = worst[name+"-max-rtt"]
		}
	}
	m["failed-starts"] = float64(failed)
	m["starts-each"] = float64(len(samples[0].watchBrowser) + samples[0].failed)
	report(b, m)
}
