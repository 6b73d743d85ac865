//go:build go1.24

package tabguard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"syscall"
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

const (
	// scaleTabs is the tab count the scale goals are set at.
	scaleTabs = 200
	// burstFetches is how many requests the busy tab makes in one burst.
	burstFetches = 400
)

// burstJS makes the busy tab fetch n small responses at once.
const burstJS = `(n) => Promise.all(Array.from({length: n}, (_, i) => fetch("/ping?" + i).then(r => r.text()))).then(a => a.length)`

// BenchmarkScale measures what watching many tabs costs the Go process. One
// tab is busy: a burst of 400 fetches, with the Network domain on (as a
// watcher turns it on), makes CDP events, which rod fans out to every page
// of the connection. The CPU the process spends (getrusage, user and
// system) is divided by the messages read over the connection. rod alone is
// measured with 1, 50 and 200 pages open; at 200 each iteration runs one
// burst with rod alone and one with every tab watched through one
// BrowserWatcher, in alternating order, watching all 200 anew each time:
// that step gives the time per bw.Watch and, around it, the goroutines and
// the heap it adds per tab.
func BenchmarkScale(b *testing.B) {
	br := benchBrowser(b)
	srv := pingServer(b)
	ctx := testbrowser.Context(b, 10*time.Minute)
	mb, meter, err := wsmeter.Connect(ctx, br.Launcher.Get(flags.UserDataDir))
	require.NoError(b, err)
	b.Cleanup(func() { _ = meter.Close() })

	pages := openPages(b, ctx, mb, srv.URL, 1)
	busy := pages[0]
	require.NoError(b, proto.NetworkEnable{}.Call(busy.Context(ctx)))
	burst := func() float64 { return burstCPU(b, ctx, busy, meter) }
	rodAt := map[int]float64{}
	for _, n := range []int{1, 50} {
		pages = append(pages, openPages(b, ctx, mb, srv.URL, n-len(pages))...)
		rodAt[n] = median(3, burst)
	}
	pages = append(pages, openPages(b, ctx, mb, srv.URL, scaleTabs-len(pages))...)

	var rod200, watched, watchTime benchutil.Samples
	var goroutines, heap []float64
	i := 0
	for b.Loop() {
		rodBurst := func() { rod200 = append(rod200, nsDuration(burst())) }
		watchedBurst := func() {
			bw, g, h, d := watchAll(b, mb, pages)
			goroutines, heap, watchTime = append(goroutines, g), append(heap, h), append(watchTime, d)
			watched = append(watched, nsDuration(burst()))
			require.NoError(b, bw.Close())
		}
		if i%2 == 0 {
			rodBurst()
			watchedBurst()
		} else {
			watchedBurst()
			rodBurst()
		}
		i++
	}
	report(b, map[string]float64{
		"rod-1-ns/event":       rodAt[1],
		"rod-50-ns/event":      rodAt[50],
		"rod-200-ns/event":     float64(rod200.Quantile(0.5)),
		"watched-200-ns/event": float64(watched.Quantile(0.5)),
		"cpu-ratio":            benchutil.Ratio(watched.Quantile(0.5), rod200.Quantile(0.5)),
		"rod-200/rod-1":        float64(rod200.Quantile(0.5)) / rodAt[1],
		"goroutines/tab":       maxOf(goroutines),
		"heap-bytes/tab":       medianOf(heap),
		"watch-ms/tab":         benchutil.Ms(watchTime.Quantile(0.5)),
		"tabs":                 float64(len(pages)),
	})
}

// burstCPU runs one burst on the busy tab and returns the process's CPU
// time per message read meanwhile, in nanoseconds.
func burstCPU(b *testing.B, ctx context.Context, busy *rod.Page, meter *wsmeter.Meter) float64 {
	settle()
	msgs, cpu := meter.Messages(), cpuTime()
	res, err := busy.Context(ctx).Eval(burstJS, burstFetches)
	require.NoError(b, err)
	require.Equal(b, burstFetches, res.Value.Int())
	// The last events trail the promise, and rod delivers them to every
	// page after that: wait until the process is quiet.
	settle()
	return float64(cpuTime()-cpu) / float64(meter.Messages()-msgs)
}

// watchAll watches every page through a new BrowserWatcher and returns it
// with the goroutines and heap bytes it added per tab and the time per Watch.
func watchAll(b *testing.B, mb *rod.Browser, pages []*rod.Page) (*tabguard.BrowserWatcher, float64, float64, time.Duration) {
	bw, err := tabguard.WatchBrowser(mb, nil)
	require.NoError(b, err)
	settle()
	g0, h0 := runtime.NumGoroutine(), heapBytes()
	start := time.Now()
	for _, p := range pages {
		_, err := bw.Watch(p)
		require.NoError(b, err)
	}
	d := time.Since(start) / time.Duration(len(pages))
	settle()
	n := float64(len(pages))
	return bw, float64(runtime.NumGoroutine()-g0) / n, float64(heapBytes()-h0) / n, d
}

// openPages opens n tabs on mb at url, loaded.
func openPages(b *testing.B, ctx context.Context, mb *rod.Browser, url string, n int) []*rod.Page {
	pages := make([]*rod.Page, 0, n)
	for i := range n {
		target, err := proto.TargetCreateTarget{URL: fmt.Sprintf("%s/?tab=%d", url, i)}.Call(mb.Context(ctx))
		require.NoError(b, err)
		p, err := mb.PageFromTarget(target.TargetID)
		require.NoError(b, err)
		pages = append(pages, p)
	}
	return pages
}

// pingServer serves a page at / and a tiny answer at /ping.
func pingServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ping" {
			fmt.Fprint(w, "pong")
			return
		}
		fmt.Fprint(w, `<!doctype html><title>tab</title><p>tab`)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// settle waits until the process is quiet, so no earlier step's work (rod
// delivering a burst's events to 200 pages takes a while after the wire is
// quiet) is timed with the next, and collects garbage: at most 10 s, until
// it uses under 5% of a core over 200 ms.
func settle() {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		cpu := cpuTime()
		time.Sleep(200 * time.Millisecond)
		if cpuTime()-cpu < 10*time.Millisecond {
			break
		}
	}
	runtime.GC()
}

func heapBytes() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

func median(n int, f func() float64) float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = f()
	}
	return medianOf(xs)
}

func medianOf(xs []float64) float64 {
	s := make(benchutil.Samples, len(xs))
	for i, x := range xs {
		s[i] = nsDuration(x)
	}
	return float64(s.Quantile(0.5))
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func nsDuration(ns float64) time.Duration { return time.Duration(ns) }
