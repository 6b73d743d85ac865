package chromedpguard_test

// Benchmarks that back the chromedp claims in BENCHMARKS.md. As in the root
// package, each measures the guard against plain chromedp in the same
// process, on the same browser, interleaved, and reports its figures with
// b.ReportMetric; scripts/bench runs them with fixed iteration counts. They
// assert nothing about timing, and one iteration is one unit of work, so
// -benchtime=1x is a quick smoke run.

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/benchutil"
)

// benchTab launches a browser of the benchmark's own, so no test's tabs
// weigh on it, opens a tab on it, loads a page of a fresh server in it and
// watches it. Everything ends when b does.
func benchTab(b *testing.B) (context.Context, *chromedpguard.Watcher) {
	b.Helper()
	browser, stop, err := launch()
	require.NoError(b, err, "start Chromium")
	b.Cleanup(stop)
	tab, cancel := chromedp.NewContext(browser)
	b.Cleanup(cancel)
	require.NoError(b, chromedp.Do(tab), "open a tab")
	w, err := chromedpguard.Watch(tab, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = w.Close() })
	require.NoError(b, w.Navigate(within(b, 30*time.Second), serve(b).URL))
	_, err = w.Wait(within(b, 30*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(b, err)
	return tab, w
}

// BenchmarkChromedpEval compares Watcher.Eval with plain chromedp.Evaluate
// on the same loaded tab. The plain call is written as a chromedp program
// writes it, chromedp.Run of chromedp.Evaluate[int], with the expression
// that calls the function. Watcher.Eval asks Chrome to await nothing, and
// awaits a promise result with a second call; a third call, chromedp.Evaluate
// with EvalAwaitPromise, shows what awaiting every result in Chrome would
// cost. Then the allocations of allocCalls calls of each are counted. Each iteration makes one call of each, in an order
// that goes through all six over six iterations, so whatever slows the
// machine slows all three. The A/A figure splits the plain calls into odd
// and even blocks of aaBlock iterations: how far apart two halves of the
// same thing land is the noise floor a ratio has to be read against.
func BenchmarkChromedpEval(b *testing.B) {
	const (
		fn      = `() => 1`
		expr    = `(` + fn + `)()` // what Watcher.Eval sends for fn
		aaBlock = 60               // a multiple of the six orders
	)
	tab, w := benchTab(b)
	ctx, cancel := context.WithTimeout(tab, 5*time.Minute)
	defer cancel()

	plainRun := func(a chromedp.Action[int]) func() time.Duration {
		return func() time.Duration {
			return benchutil.Time(func() {
				n, err := chromedp.Run(ctx, a)
				if err != nil || n != 1 {
					b.Fatalf("chromedp.Evaluate() = %v, %v; want 1", n, err)
				}
			})
		}
	}
	guarded := func() time.Duration {
		return benchutil.Time(func() {
			res, err := w.Eval(ctx, fn)
			if err != nil || string(res.Value) != "1" {
				b.Fatalf("Watcher.Eval() = %v, %v; want 1", res, err)
			}
		})
	}
	const plain, guard, awaited = 0, 1, 2
	calls := [3]func() time.Duration{
		plain:   plainRun(chromedp.Evaluate[int](expr)),
		guard:   guarded,
		awaited: plainRun(chromedp.Evaluate[int](expr, chromedp.EvalAwaitPromise)),
	}
	orders := [6][3]int{{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {0, 2, 1}, {1, 2, 0}, {2, 1, 0}}
	for range 50 { // warm every path: V8's compile cache, chromedp's buffers
		for _, call := range calls {
			call()
		}
	}

	var s [3]benchutil.Samples
	var oddS, evenS benchutil.Samples
	i := 0
	for b.Loop() {
		for _, k := range orders[i%len(orders)] {
			s[k] = append(s[k], calls[k]())
		}
		if p := s[plain][len(s[plain])-1]; (i/aaBlock)%2 == 0 {
			evenS = append(evenS, p)
		} else {
			oddS = append(oddS, p)
		}
		i++
	}
	p50 := func(k int) time.Duration { return s[k].Quantile(0.5) }
	const allocCalls = 1000 // counted after the timed calls
	plainAllocs := benchutil.Allocs(allocCalls, func() { calls[plain]() })
	guardAllocs := benchutil.Allocs(allocCalls, func() { calls[guard]() })
	report(b, map[string]float64{
		"plain-allocs":       plainAllocs,
		"guarded-allocs":     guardAllocs,
		"allocs-above-plain": guardAllocs - plainAllocs,
		"plain-p50-ms":       benchutil.Ms(p50(plain)),
		"plain-p99-ms":       benchutil.Ms(s[plain].Quantile(0.99)),
		"guarded-p50-ms":     benchutil.Ms(p50(guard)),
		"guarded-p99-ms":     benchutil.Ms(s[guard].Quantile(0.99)),
		"awaited-p50-ms":     benchutil.Ms(p50(awaited)),
		"p50-ratio":          benchutil.Ratio(p50(guard), p50(plain)),
		"p99-ratio":          benchutil.Ratio(s[guard].Quantile(0.99), s[plain].Quantile(0.99)),
		"await-ratio":        benchutil.Ratio(p50(awaited), p50(plain)),
		"guard-ratio":        benchutil.Ratio(p50(guard), p50(awaited)),
		"aa-p50-ratio":       benchutil.Ratio(oddS.Quantile(0.5), evenS.Quantile(0.5)),
		"calls-each":         float64(len(s[plain])),
	})
}

// report hands metrics to the testing package; each unit names its figure.
func report(b *testing.B, metrics map[string]float64) {
	for unit, v := range metrics {
		b.ReportMetric(v, unit)
	}
}
