//go:build go1.24

package tabguard_test

// Benchmarks that back the claims in BENCHMARKS.md. Each measures the
// library against its baseline in the same process, on the same browser,
// interleaved, and reports the figures with b.ReportMetric; scripts/bench
// runs them with fixed iteration counts and turns the metrics into
// BENCHMARKS.md. They assert nothing about timing: a slow machine gives
// worse numbers, never a failure. Every iteration is one unit of work (one
// call, one crash, one phase pair), so -benchtime=1x is a quick smoke run.
// The benchmark files build with Go 1.24 and later (testing.B.Loop, which
// runs a benchmark's setup once); the module itself needs Go 1.23.

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// benchBrowser launches a browser of the benchmark's own, so one
// benchmark's tabs and crashes never weigh on the next.
func benchBrowser(b *testing.B) *testbrowser.Browser {
	b.Helper()
	br, err := testbrowser.Launch()
	require.NoError(b, err)
	b.Cleanup(br.Close)
	return br
}

// benchPage opens a tab on br at url and waits for it to load.
func benchPage(b *testing.B, br *testbrowser.Browser, url string) *rod.Page {
	b.Helper()
	page := testbrowser.NewPage(b, br)
	benchLoad(b, page, url)
	return page
}

// benchLoad navigates page to url and waits for the load event, within 60 s
// (a 5 MB page on a loaded machine can take tens of seconds).
func benchLoad(b *testing.B, page *rod.Page, url string) {
	b.Helper()
	p := page.Context(testbrowser.Context(b, time.Minute))
	require.NoError(b, p.Navigate(url))
	require.NoError(b, p.WaitLoad())
}

// allocCalls is how many calls of each kind a benchmark counts the
// allocations of, after its timed calls.
const allocCalls = 1000

// BenchmarkHealthyEval compares Watcher.Eval with rod's page.Eval on the same
// healthy tab. Each iteration makes one call of each, in alternating order;
// then the allocations of allocCalls calls of each are counted.
// The A/A figures split the raw calls into odd and even blocks of aaBlock
// iterations: how far apart two halves of the same thing land is the noise
// floor a ratio has to be read against. The tab is reached through a
// connection that counts requests, to show that Watcher.Eval's preflight
// sends none of its own.
func BenchmarkHealthyEval(b *testing.B) {
	const (
		js      = `() => 1`
		aaBlock = 50
	)
	page, meter := meteredPage(b, benchBrowser(b))
	benchLoad(b, page, serve(b).URL)
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 5*time.Minute)
	raw := page.Context(ctx)

	var rawReqs, guardReqs int64
	rawEval := func() time.Duration {
		defer func(n int64) { rawReqs += meter.Requests() - n }(meter.Requests())
		return benchutil.Time(func() {
			res, err := raw.Eval(js)
			if err != nil || res.Value.Int() != 1 {
				b.Fatalf("page.Eval() = %v, %v; want 1", res, err)
			}
		})
	}
	guardedEval := func() time.Duration {
		defer func(n int64) { guardReqs += meter.Requests() - n }(meter.Requests())
		return benchutil.Time(func() {
			res, err := w.Eval(ctx, js)
			if err != nil || res.Value.Int() != 1 {
				b.Fatalf("Watcher.Eval() = %v, %v; want 1", res, err)
			}
		})
	}
	for range 50 { // warm both paths: compile caches, rod's cached context ID
		rawEval()
		guardedEval()
	}

	var rawS, guardS, oddS, evenS benchutil.Samples
	rawReqs, guardReqs = 0, 0
	i := 0
	for b.Loop() {
		var r, g time.Duration
		if i%2 == 0 {
			r, g = rawEval(), guardedEval()
		} else {
			g, r = guardedEval(), rawEval()
		}
		rawS, guardS = append(rawS, r), append(guardS, g)
		if (i/aaBlock)%2 == 0 {
			evenS = append(evenS, r)
		} else {
			oddS = append(oddS, r)
		}
		i++
	}
	rawPerCall, guardPerCall := float64(rawReqs)/float64(len(rawS)), float64(guardReqs)/float64(len(guardS))
	rawAllocs, guardAllocs := benchutil.Allocs(allocCalls, func() { rawEval() }), benchutil.Allocs(allocCalls, func() { guardedEval() })
	report(b, map[string]float64{
		"raw-allocs":        rawAllocs,
		"tabguard-allocs":   guardAllocs,
		"allocs-above-raw":  guardAllocs - rawAllocs,
		"raw-p50-ms":        benchutil.Ms(rawS.Quantile(0.5)),
		"raw-p99-ms":        benchutil.Ms(rawS.Quantile(0.99)),
		"tabguard-p50-ms":   benchutil.Ms(guardS.Quantile(0.5)),
		"tabguard-p99-ms":   benchutil.Ms(guardS.Quantile(0.99)),
		"p50-ratio":         benchutil.Ratio(guardS.Quantile(0.5), rawS.Quantile(0.5)),
		"p99-ratio":         benchutil.Ratio(guardS.Quantile(0.99), rawS.Quantile(0.99)),
		"aa-p50-ratio":      benchutil.Ratio(oddS.Quantile(0.5), evenS.Quantile(0.5)),
		"aa-p99-ratio":      benchutil.Ratio(oddS.Quantile(0.99), evenS.Quantile(0.99)),
		"calls-each":        float64(len(rawS)),
		"raw-requests":      rawPerCall,
		"tabguard-requests": guardPerCall,
	})
}

// BenchmarkRefusal times Watcher.Eval on tabs it must refuse: one whose
// renderer crashed, one whose load failed. A refusal sends nothing to the
// renderer; before it answers, it makes sure no recovery is still on its way
// through rod's event fan-out (one browser-side round trip, see sync.go).
// On a browser from Connect, whose transport hands every message to the
// watchers before rod reads on, it needs no round trip at all
// (transport=Connect). The baseline, timed alternately with each refusal,
// is the cheapest browser-side round trip there is: Target.getTargetInfo
// of the tab.
func BenchmarkRefusal(b *testing.B) {
	br := benchBrowser(b)
	srv := serve(b)
	b.Run("tab=crashed", func(b *testing.B) {
		page := benchPage(b, br, srv.URL)
		w := watch(b, page, nil)
		crash(b, page)
		eventually(b, "the crash", blockedBy(b, w, tabguard.ErrTabCrashed))
		benchRefusals(b, page, w, tabguard.ErrTabCrashed)
	})
	b.Run("tab=no-document", func(b *testing.B) {
		page := testbrowser.NewPage(b, br)
		w := watch(b, page, nil)
		require.Error(b, navigate(b, page, testbrowser.DeadURL(b)))
		eventually(b, "the load error", blockedBy(b, w, tabguard.ErrNoDocument))
		benchRefusals(b, page, w, tabguard.ErrNoDocument)
	})
	b.Run("tab=crashed,transport=Connect", func(b *testing.B) {
		page := connectedPage(b, br, srv.URL)
		w := watch(b, page, nil)
		crash(b, page)
		eventually(b, "the crash", blockedBy(b, w, tabguard.ErrTabCrashed))
		benchRefusals(b, page, w, tabguard.ErrTabCrashed)
	})
}

// connectedPage opens a tab at url on br through a second connection,
// made with Connect, and waits for it to load.
func connectedPage(b *testing.B, br *testbrowser.Browser, url string) *rod.Page {
	b.Helper()
	wsURL, err := wsmeter.ActivePortURL(br.Launcher.Get(flags.UserDataDir))
	require.NoError(b, err)
	cb, err := tabguard.Connect(testbrowser.Context(b, 10*time.Second), wsURL)
	require.NoError(b, err)
	// rod closes a connection only with its browser: run last on br.
	b.Cleanup(func() { _ = cb.Close() })
	page := testbrowser.NewPage(b, &testbrowser.Browser{Browser: cb})
	benchLoad(b, page, url)
	return page
}

func benchRefusals(b *testing.B, page *rod.Page, w *tabguard.Watcher, want error) {
	ctx := testbrowser.Context(b, 5*time.Minute)
	info := proto.TargetGetTargetInfo{TargetID: page.TargetID}
	var s, rt benchutil.Samples
	for b.Loop() {
		var err error
		s = append(s, benchutil.Time(func() { _, err = w.Eval(ctx, `() => 1`) }))
		if !errors.Is(err, want) {
			b.Fatalf("Watcher.Eval() = %v; want %v", err, want)
		}
		rt = append(rt, benchutil.Time(func() { _, err = info.Call(page.Browser().Context(ctx)) }))
		require.NoError(b, err)
	}
	report(b, map[string]float64{
		"p50-us":             benchutil.Us(s.Quantile(0.5)),
		"p99-us":             benchutil.Us(s.Quantile(0.99)),
		"max-us":             benchutil.Us(s.Quantile(1)),
		"roundtrip-p50-us":   benchutil.Us(rt.Quantile(0.5)),
		"roundtrip-p99-us":   benchutil.Us(rt.Quantile(0.99)),
		"p50/roundtrip":      benchutil.Ratio(s.Quantile(0.5), rt.Quantile(0.5)),
		"p99/roundtrip-p99":  benchutil.Ratio(s.Quantile(0.99), rt.Quantile(0.99)),
		"refusal-vs-timeout": benchutil.Ratio(tabguard.DefaultEvalTimeout, s.Quantile(0.99)),
	})
}

// report hands metrics to the testing package; each unit names its figure.
func report(b *testing.B, metrics map[string]float64) {
	for unit, v := range metrics {
		b.ReportMetric(v, unit)
	}
}

// BenchmarkTruncateDOMScaling cuts 1 MB, 10 MB and 100 MB of HTML to the
// default cap, with a multi-byte rune at the cut. Each iteration cuts each
// input once, so the three are timed side by side. Time and allocation must
// not grow with the input: only the cap-sized result is built.
func BenchmarkTruncateDOMScaling(b *testing.B) {
	const row = "<li>héllo wörld 日本語 👩‍💻</li>\n"
	sizes := []int{1, 10, 100}
	inputs := make([]string, len(sizes))
	for k, mb := range sizes {
		inputs[k] = strings.Repeat(row, mb<<20/len(row)+1)
	}
	times := make([]benchutil.Samples, len(sizes))
	for b.Loop() {
		for k, in := range inputs {
			times[k] = append(times[k], benchutil.Time(func() { tabguard.TruncateDOM(in, tabguard.DefaultMaxDOMBytes) }))
		}
	}
	m := map[string]float64{"cap-bytes": tabguard.DefaultMaxDOMBytes}
	for k, mb := range sizes {
		allocs, bytes := allocsPerCut(inputs[k])
		name := fmt.Sprintf("%dMB", mb)
		m[name+"-ns"] = float64(times[k].Quantile(0.5))
		m[name+"-allocs"] = allocs
		m[name+"-B"] = bytes
	}
	m["100MB/1MB"] = benchutil.Ratio(times[2].Quantile(0.5), times[0].Quantile(0.5))
	report(b, m)
}

// allocsPerCut returns how many allocations, and how many bytes, one
// TruncateDOM of in to the default cap makes.
func allocsPerCut(in string) (allocs, bytes float64) {
	const runs = 100
	var before, after runtime.MemStats
	kept := 0
	runtime.ReadMemStats(&before)
	for range runs {
		out, _ := tabguard.TruncateDOM(in, tabguard.DefaultMaxDOMBytes)
		kept += len(out)
	}
	runtime.ReadMemStats(&after)
	if kept == 0 {
		panic("TruncateDOM returned nothing")
	}
	return float64(after.Mallocs-before.Mallocs) / runs, float64(after.TotalAlloc-before.TotalAlloc) / runs
}
