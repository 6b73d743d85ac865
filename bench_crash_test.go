//go:build go1.24

package tabguard_test

import (
	"context"
	"errors"
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

// pendingJS never settles; it counts itself in, so a benchmark knows when
// every eval it started is waiting in the page.
const pendingJS = `() => { window.__pending = (window.__pending || 0) + 1; return new Promise(() => {}) }`

// BenchmarkCrashToAnswer crashes a tab with evals in flight and times, from
// the Page.crash request, how long Watcher.Eval takes to return
// ErrTabCrashed and how long Chrome takes to report the crash. Each
// iteration is one crash, then a Page.reload to recover. A rod page.Eval
// with no short deadline is in flight every time, to show that it never
// answers before the reload; every tenth crash, starting with the first,
// a rod eval with a 5 s deadline is in flight too, and the crash is left
// standing until it answers.
func BenchmarkCrashToAnswer(b *testing.B) {
	const (
		timeout       = 5 * time.Second
		baselineEvery = 10
	)
	br := benchBrowser(b)
	page := benchPage(b, br, serve(b).URL)
	w := watch(b, page, &tabguard.Options{EvalTimeout: time.Minute})
	ctx := testbrowser.Context(b, 5*time.Minute)

	var guard, chrome, lag, timedOut, watched benchutil.Samples
	rawEarly, i := 0, 0
	for b.Loop() {
		c := crashInFlight(b, ctx, page, w, i%baselineEvery == 0, timeout)
		guard, chrome, lag = append(guard, c.guard), append(chrome, c.chrome), append(lag, c.guard-c.chrome)
		watched = append(watched, c.watched)
		if c.timeout > 0 {
			timedOut = append(timedOut, c.timeout)
		}
		if c.rawEarly {
			rawEarly++
		}
		i++
	}
	report(b, map[string]float64{
		"tabguard-p50-ms":      benchutil.Ms(guard.Quantile(0.5)),
		"tabguard-p95-ms":      benchutil.Ms(guard.Quantile(0.95)),
		"tabguard-p99-ms":      benchutil.Ms(guard.Quantile(0.99)),
		"chrome-report-p50-ms": benchutil.Ms(chrome.Quantile(0.5)),
		"chrome-report-p95-ms": benchutil.Ms(chrome.Quantile(0.95)),
		"lag-p50-ms":           benchutil.Ms(lag.Quantile(0.5)),
		"lag-p95-ms":           benchutil.Ms(lag.Quantile(0.95)),
		"timeout-p50-ms":       benchutil.Ms(timedOut.Quantile(0.5)),
		"speedup-vs-timeout":   benchutil.Ratio(timedOut.Quantile(0.5), guard.Quantile(0.95)),
		"raw-answered":         float64(rawEarly),
		"raw-watched-max-ms":   benchutil.Ms(watched.Quantile(1)),
		"crashes":              float64(len(guard)),
		"timeout-crashes":      float64(len(timedOut)),
	})
}

// crashCycle is what one crash showed, each time counted from Page.crash.
type crashCycle struct {
	guard    time.Duration // until Watcher.Eval returned ErrTabCrashed
	chrome   time.Duration // until Target.targetCrashed reached rod
	timeout  time.Duration // until the 5 s rod eval gave up; 0 if none ran
	watched  time.Duration // until the reload: how long raw rod was given
	rawEarly bool          // raw rod answered before the reload
}

type answer struct {
	at  time.Time
	err error
}

// async runs f on a goroutine and delivers its answer and when it came.
func async(f func() error) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		err := f()
		ch <- answer{time.Now(), err}
	}()
	return ch
}

func crashInFlight(b *testing.B, ctx context.Context, page *rod.Page, w *tabguard.Watcher, baseline bool, timeout time.Duration) crashCycle {
	b.Helper()
	rawCtx, cancel := context.WithTimeout(ctx, time.Minute) // far past the cycle: raw has no short deadline
	defer cancel()
	pending := 2
	guardC := async(func() error { _, err := w.Eval(ctx, pendingJS); return err })
	rawC := async(func() error { _, err := page.Context(rawCtx).Eval(pendingJS); return err })
	var timeoutC <-chan answer
	if baseline {
		pending++
		tctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		timeoutC = async(func() error { _, err := page.Context(tctx).Eval(pendingJS); return err })
	}
	eventually(b, "the evals to be in flight", func() bool {
		res, err := w.Eval(ctx, `() => window.__pending || 0`)
		return err == nil && res.Value.Int() >= pending
	})

	start, reported, done := benchCrashTab(ctx, page)
	defer done()
	var c crashCycle
	a := await(b, guardC, "Watcher.Eval")
	c.guard = a.at.Sub(start)
	if !errors.Is(a.err, tabguard.ErrTabCrashed) {
		b.Fatalf("Watcher.Eval() on a crashing tab = %v; want ErrTabCrashed", a.err)
	}
	select {
	case at := <-reported:
		c.chrome = at.Sub(start)
	case <-time.After(10 * time.Second):
		b.Fatal("Chrome reported no crash within 10s")
	}
	if baseline {
		a := await(b, timeoutC, "the 5s rod eval")
		c.timeout = a.at.Sub(start)
		if !errors.Is(a.err, context.DeadlineExceeded) {
			b.Fatalf("rod Eval with a 5s deadline = %v; want DeadlineExceeded", a.err)
		}
	}
	select {
	case <-rawC:
		c.rawEarly = true
	default:
	}
	c.watched = time.Since(start)
	benchReloadTab(b, ctx, page, w)
	await(b, rawC, "raw rod Eval after the reload") // "Target crashed", now that the tab is navigated
	return c
}

// await waits up to 10 s for an answer on ch.
func await(b *testing.B, ch <-chan answer, what string) answer {
	b.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(10 * time.Second):
		b.Fatalf("%s still waiting after 10s", what)
		return answer{}
	}
}

// benchCrashTab sends Page.crash to page. It returns when the request went out,
// a channel that gets the time Chrome's Target.targetCrashed reached rod,
// and a func to call after recovery, which waits for the helper goroutines.
func benchCrashTab(ctx context.Context, page *rod.Page) (time.Time, <-chan time.Time, func()) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	reported := make(chan time.Time, 1)
	wait := page.Browser().Context(ctx).EachEvent(func(e *proto.TargetTargetCrashed) bool {
		if e.TargetID != page.TargetID {
			return false
		}
		reported <- time.Now()
		return true
	})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); wait() }()
	start := time.Now()
	go func() {
		defer wg.Done()
		// A crashed tab answers Page.crash only once it is navigated again.
		_ = proto.PageCrash{}.Call(page.Context(ctx))
	}()
	return start, reported, func() { cancel(); wg.Wait() }
}

// benchReloadTab recovers a crashed tab with CDP's Page.reload (rod's
// page.Reload runs JavaScript, which a crashed tab never answers) and waits
// until w admits evals again.
func benchReloadTab(b *testing.B, ctx context.Context, page *rod.Page, w *tabguard.Watcher) {
	b.Helper()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(b, proto.PageReload{}.Call(page.Context(rctx)))
	eventually(b, "the reload", func() bool { return w.Blocked(rctx) == nil })
}
