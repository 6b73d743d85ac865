//go:build go1.24

package tabguard_test

import (
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// BenchmarkConsole tells what Options.Console costs a rod tab: two tabs of
// one browser on the same page, each over a metered connection of its
// own, one watched with Console and one without. Each iteration makes one
// Watcher.Eval on each tab, in alternating order, and counts the bytes
// each connection read meanwhile. Then each tab reloads ten times, to
// network idle, its bytes counted; Watch's own bytes are counted once per
// tab; and a page that logs 100 lines (a string, a number and an object
// each) gives the bytes a console call costs.
func BenchmarkConsole(b *testing.B) {
	const js = `() => 1`
	br := benchBrowser(b)
	url := serve(b).URL
	ctx := testbrowser.Context(b, 5*time.Minute)
	type tab struct {
		page  *rod.Page
		meter *wsmeter.Meter
		w     *tabguard.Watcher
		evals benchutil.Samples
		watch int64
		eval  int64 // bytes read by the evals
		load  int64 // bytes read by the reloads, to network idle
		n     int64
	}
	open := func(console bool) *tab {
		page, meter := meteredPage(b, br)
		benchLoad(b, page, url)
		before := meter.BytesRead()
		w := watch(b, page, &tabguard.Options{Console: console})
		_, err := w.Eval(ctx, js) // every event of the start is in before its reply
		require.NoError(b, err)
		return &tab{page: page, meter: meter, w: w, watch: meter.BytesRead() - before}
	}
	off, on := open(false), open(true)
	eval := func(t *tab) {
		before := t.meter.BytesRead()
		t.evals = append(t.evals, benchutil.Time(func() {
			if res, err := t.w.Eval(ctx, js); err != nil || res.Value.Int() != 1 {
				b.Fatalf("Watcher.Eval() = %v, %v; want 1", res, err)
			}
		}))
		t.eval += t.meter.BytesRead() - before
		t.n++
	}
	idle := func(s tabguard.TabState) bool { return s.Milestones&tabguard.NetworkIdle != 0 }
	reload := func(t *tab) {
		before := t.meter.BytesRead()
		require.NoError(b, t.w.Reload(ctx))
		_, err := t.w.Wait(ctx, idle) // Chrome's last event of a load
		require.NoError(b, err)
		_, err = t.w.Eval(ctx, js) // every event before it is in
		require.NoError(b, err)
		t.load += t.meter.BytesRead() - before
	}
	for range 50 { // warm both
		eval(off)
		eval(on)
	}
	off.eval, off.n, off.evals = 0, 0, nil
	on.eval, on.n, on.evals = 0, 0, nil
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			eval(off)
			eval(on)
		} else {
			eval(on)
			eval(off)
		}
		i++
	}
	const reloads = 10
	for range reloads {
		reload(off)
		reload(on)
	}
	logged := func(t *tab) float64 {
		before := t.meter.BytesRead()
		_, err := t.w.Eval(ctx, `() => { for (let i = 0; i < 100; i++) console.log("line", i, {i, even: i % 2 == 0}) }`)
		require.NoError(b, err)
		_, err = t.w.Eval(ctx, js)
		require.NoError(b, err)
		return float64(t.meter.BytesRead()-before) / 100
	}
	offLog, onLog := logged(off), logged(on)
	report(b, map[string]float64{
		"off-eval-p50-ms":           benchutil.Ms(off.evals.Quantile(0.5)),
		"on-eval-p50-ms":            benchutil.Ms(on.evals.Quantile(0.5)),
		"eval-p50-ratio":            benchutil.Ratio(on.evals.Quantile(0.5), off.evals.Quantile(0.5)),
		"off-eval-bytes":            float64(off.eval) / float64(off.n),
		"on-eval-bytes":             float64(on.eval) / float64(on.n),
		"off-reload-bytes":          float64(off.load) / reloads,
		"on-reload-bytes":           float64(on.load) / reloads,
		"off-watch-bytes":           float64(off.watch),
		"on-watch-bytes":            float64(on.watch),
		"off-bytes-per-console.log": offLog,
		"on-bytes-per-console.log":  onLog,
		"iterations":                float64(on.n),
	})
}
