//go:build go1.24

package tabguard_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/tabtrace"
)

// resumeDelay is the one-way delay of the link BenchmarkResume cuts.
const resumeDelay = 250 * time.Millisecond

// resumeLeakRounds is how many resumes BenchmarkResume makes on a link
// with no delay to count what they leave behind.
const resumeLeakRounds = 100

// BenchmarkResume times a resume over a slow link, in round trips of the
// link: a proxy in front of the browser delays each direction of every
// connection a resume makes by resumeDelay. A browser from Connect
// watches 1 tab, and another 100, through such a proxy (set up before the
// delay: rod attaches to its pages one at a time). Each iteration cuts
// each connection (both sockets, the browser lives on), waits for the
// watcher to see the drop, then evaluates on every tab at once; "next-eval" is the time from the drop to the last of those
// evals' answers, "resumed" the time to the sessions attached again.
// Then, on a link with no delay, resumeLeakRounds resumes of the 1-tab
// watcher: the goroutines and the heap in use after them, beside after
// the first.
func BenchmarkResume(b *testing.B) {
	br := benchBrowser(b)
	url := serve(b).URL
	host := strings.TrimPrefix(br.URL, "ws://")
	host = host[:strings.IndexByte(host, '/')]
	rtt := float64(2 * resumeDelay)
	sizes := []int{1, 100}
	rigs := make([]*resumeRig, len(sizes))
	for i, n := range sizes {
		// Set up over a fast link (rod attaches to its pages one at a
		// time); every connection a resume makes runs over the slow one.
		p := faultproxy.Start(b, host, nil)
		rigs[i] = newResumeRig(b, br, p, url, n)
		p.SetDelay(resumeDelay)
	}
	next := make([]benchutil.Samples, len(sizes))
	resumed := make([]benchutil.Samples, len(sizes))
	for b.Loop() {
		for i, r := range rigs {
			d, took := r.cut(b)
			next[i] = append(next[i], d)
			resumed[i] = append(resumed[i], took)
		}
	}
	for i, n := range sizes {
		b.ReportMetric(float64(next[i].Quantile(0.5))/rtt, fmt.Sprintf("next-eval-%dtabs-rtt", n))
		b.ReportMetric(float64(next[i].Quantile(1))/rtt, fmt.Sprintf("next-eval-%dtabs-max-rtt", n))
		b.ReportMetric(float64(resumed[i].Quantile(0.5))/rtt, fmt.Sprintf("resumed-%dtabs-rtt", n))
		rigs[i].close()
	}

	local := faultproxy.Start(b, host, nil)
	r := newResumeRig(b, br, local, url, 1)
	defer r.close()
	r.cut(b)
	goroutines, heap := quiescent()
	for range resumeLeakRounds {
		r.cut(b)
	}
	goroutinesAfter, heapAfter := quiescent()
	b.ReportMetric(float64(goroutinesAfter-goroutines), "goroutines-grown")
	b.ReportMetric(float64(heapAfter-heap)/1024, "heap-grown-KiB")
	b.ReportMetric(resumeLeakRounds, "leak-rounds")
}

// quiescent is the number of goroutines and the heap in use once the
// garbage is collected.
func quiescent() (goroutines int, heap int64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), int64(m.HeapInuse)
}

// resumeRig is a browser from Connect through a proxy, watching n tabs.
type resumeRig struct {
	proxy   *faultproxy.Proxy
	b       *rod.Browser
	bw      *tabguard.BrowserWatcher
	ws      []*tabguard.Watcher
	dropped chan struct{}
	resumed chan time.Duration
}

func newResumeRig(b *testing.B, br *testbrowser.Browser, p *faultproxy.Proxy, url string, n int) *resumeRig {
	b.Helper()
	ctx := testbrowser.Context(b, 5*time.Minute)
	r := &resumeRig{proxy: p, dropped: make(chan struct{}, 1), resumed: make(chan time.Duration, 1)}
	cb, err := tabguard.Connect(ctx, p.URL(br.URL))
	require.NoError(b, err)
	r.b = cb
	r.bw, err = tabguard.WatchBrowser(cb, &tabguard.Options{Trace: &tabtrace.Trace{TabChanged: func(c tabtrace.Change) {
		switch c.Kind {
		case tabtrace.ConnectionDropped:
			r.dropped <- struct{}{}
		case tabtrace.ConnectionResumed:
			d, _ := time.ParseDuration(strings.TrimPrefix(c.Detail, "after "))
			r.resumed <- d
		}
	}}})
	require.NoError(b, err)
	// The tabs are opened on the benchmark's own connection, with no
	// delay, and watched through the proxy side by side.
	r.ws = make([]*tabguard.Watcher, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		target, err := proto.TargetCreateTarget{URL: url}.Call(br.Context(ctx))
		require.NoError(b, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			page, err := cb.PageFromTarget(target.TargetID)
			if err == nil {
				r.ws[i], err = r.bw.Watch(page)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(b, err)
	}
	return r
}

// cut cuts the connection and returns the time from the drop seen to the
// last tab's eval answered, and what the resume took.
func (r *resumeRig) cut(b *testing.B) (time.Duration, time.Duration) {
	b.Helper()
	r.proxy.CutAll()
	select {
	case <-r.dropped:
	case <-time.After(time.Minute):
		b.Fatal("no drop within a minute of the cut")
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make([]error, len(r.ws))
	var wg sync.WaitGroup
	for i, w := range r.ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = w.Eval(ctx, `() => 1`)
		}()
	}
	wg.Wait()
	d := time.Since(start)
	for _, err := range errs {
		require.NoError(b, err, "an eval after the resume")
	}
	select {
	case took := <-r.resumed:
		return d, took
	case <-time.After(time.Minute):
		b.Fatal("no resume within a minute of the cut")
		return 0, 0
	}
}

// close disconnects first (the benchmark's browser goes on), so the
// watchers have nothing to hand back over the slow link.
func (r *resumeRig) close() {
	_ = tabguard.Disconnect(r.b)
	for _, w := range r.ws {
		_ = w.Close()
	}
	_ = r.bw.Close()
}
