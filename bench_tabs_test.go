//go:build go1.24

package tabguard_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// BenchmarkManyTabs runs 16 tabs that each evaluate in a loop, and in
// alternate phases crashes and reloads one of them once a second. It
// compares the other tabs' latency and errors in crashing phases with
// quiet ones. Of the 15 healthy tabs, 8 evaluate through a Watcher and 7
// through rod's page.Eval, as a control: what the crashes cost the control
// tabs is the machine's share, not the library's. Each iteration is one
// quiet and one crashing phase, in alternating order; the first moments of
// every phase are left out, so a renderer restart at the end of one phase
// is not charged to the next.
func BenchmarkManyTabs(b *testing.B) {
	const (
		tabs   = 16
		phase  = 2 * time.Second
		settle = 250 * time.Millisecond
	)
	br := benchBrowser(b)
	srv := serve(b)
	ctx := testbrowser.Context(b, 5*time.Minute)
	bad := isolatedPage(b, br)
	benchLoad(b, bad, srv.URL)
	badW := watch(b, bad, nil)

	evals := []func() error{func() error { _, err := badW.Eval(ctx, `() => 1`); return err }}
	for k := range tabs - 1 {
		page := benchPage(b, br, srv.URL)
		if k%2 == 0 {
			w := watch(b, page, nil)
			evals = append(evals, func() error { _, err := w.Eval(ctx, `() => 1`); return err })
		} else {
			raw := page.Context(ctx)
			evals = append(evals, func() error { _, err := raw.Eval(`() => 1`); return err })
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	calls := make([][]call, len(evals))
	for k, eval := range evals {
		wg.Add(1)
		go func() { defer wg.Done(); calls[k] = evalLoop(eval, stop) }()
	}
	end := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer end() // when the benchmark fails

	var phases []window
	i := 0
	for b.Loop() {
		for _, crashing := range []bool{i%2 == 1, i%2 == 0} {
			start := time.Now()
			if crashing {
				for _, at := range []time.Duration{settle, settle + time.Second} {
					time.Sleep(time.Until(start.Add(at)))
					crashAndReload(b, ctx, bad, badW)
				}
			}
			time.Sleep(time.Until(start.Add(phase)))
			phases = append(phases, window{from: start.Add(settle), to: start.Add(phase), crashing: crashing})
		}
		i++
	}
	end()

	m := map[string]float64{"crashes": float64(len(phases))} // two per crashing phase, half the phases
	for _, group := range []struct {
		name  string
		first int // index in calls of the group's first tab; its tabs are every other one
	}{{"tabguard", 1}, {"control", 2}} {
		var quiet, crashing phaseCalls
		for k := group.first; k < len(calls); k += 2 {
			for _, c := range calls[k] {
				for _, p := range phases {
					if c.start.Before(p.from) || !c.start.Before(p.to) {
						continue
					}
					if p.crashing {
						crashing.add(c)
					} else {
						quiet.add(c)
					}
				}
			}
		}
		g := group.name
		m[g+"-quiet-p50-ms"] = benchutil.Ms(quiet.d.Quantile(0.5))
		m[g+"-quiet-p99-ms"] = benchutil.Ms(quiet.d.Quantile(0.99))
		m[g+"-crashing-p50-ms"] = benchutil.Ms(crashing.d.Quantile(0.5))
		m[g+"-crashing-p99-ms"] = benchutil.Ms(crashing.d.Quantile(0.99))
		m[g+"-p50-ratio"] = benchutil.Ratio(crashing.d.Quantile(0.5), quiet.d.Quantile(0.5))
		m[g+"-p99-ratio"] = benchutil.Ratio(crashing.d.Quantile(0.99), quiet.d.Quantile(0.99))
		m[g+"-quiet-errors"] = float64(quiet.errs)
		m[g+"-crashing-errors"] = float64(crashing.errs)
		m[g+"-calls"] = float64(len(quiet.d) + len(crashing.d))
	}
	report(b, m)
}

// phaseCalls gathers the calls made in one kind of phase.
type phaseCalls struct {
	d    benchutil.Samples
	errs int
}

func (p *phaseCalls) add(c call) {
	if c.err != nil {
		p.errs++
		return
	}
	p.d = append(p.d, c.d)
}

// call is one eval of a tab's loop.
type call struct {
	start time.Time
	d     time.Duration
	err   error
}

// window is a stretch of a phase whose calls are counted.
type window struct {
	from, to time.Time
	crashing bool
}

// evalLoop calls eval until stop closes, pausing between calls as a
// scraper would, and longer after an error.
func evalLoop(eval func() error, stop <-chan struct{}) []call {
	var calls []call
	for {
		pause := 20 * time.Millisecond
		start := time.Now()
		err := eval()
		calls = append(calls, call{start, time.Since(start), err})
		if err != nil {
			pause = 50 * time.Millisecond
		}
		select {
		case <-stop:
			return calls
		case <-time.After(pause):
		}
	}
}

// crashAndReload crashes page, reloads it as soon as Chrome reports the
// crash, and waits until w admits evals again.
func crashAndReload(b *testing.B, ctx context.Context, page *rod.Page, w *tabguard.Watcher) {
	b.Helper()
	_, reported, done := benchCrashTab(ctx, page)
	defer done()
	select {
	case <-reported:
	case <-time.After(10 * time.Second):
		b.Fatal("Chrome reported no crash within 10s")
	}
	benchReloadTab(b, ctx, page, w)
}

// isolatedPage opens a tab on br in a browser context of its own, so that
// it never shares a renderer process with the other tabs: crashing it then
// crashes no one else.
func isolatedPage(b *testing.B, br *testbrowser.Browser) *rod.Page {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bc, err := proto.TargetCreateBrowserContext{}.Call(br.Context(ctx))
	require.NoError(b, err)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = proto.TargetDisposeBrowserContext{BrowserContextID: bc.BrowserContextID}.Call(br.Context(ctx))
	})
	target, err := proto.TargetCreateTarget{URL: "about:blank", BrowserContextID: bc.BrowserContextID}.Call(br.Context(ctx))
	require.NoError(b, err)
	page, err := br.PageFromTarget(target.TargetID)
	require.NoError(b, err)
	return page
}
