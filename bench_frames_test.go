//go:build go1.24

package tabguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// frameJS is the function the frame benchmarks evaluate.
const frameJS = `() => 1`

// BenchmarkFrameEval compares Watcher.EvalFrame with the driver's own eval
// in the same iframe, on a loaded, watched tab of a page with one iframe.
// With site isolation off (frame=in-process), the iframe is of the page's
// site and the driver's own eval is rod's frame.Eval on the iframe
// element's Frame(). With it on (frame=out-of-process), the iframe is of
// another site, in a renderer process of its own, which rod's frame eval
// cannot reach: the driver's own way there is Runtime.evaluate on a
// session attached to the iframe's target, called through rod's
// browser.Call. Each iteration makes one call of each, and one of
// Watcher.Eval and rod's page.Eval on the tab's main frame, in an order
// that goes through all 24 over 24 iterations; then the allocations of
// allocCalls calls of each are counted. The tab is reached through a
// connection that counts the requests each call sends.
func BenchmarkFrameEval(b *testing.B) {
	srv := serve(b)
	b.Run("frame=in-process", func(b *testing.B) {
		benchFrameEvals(b, benchBrowser(b), srv.URL+faultrows.FramePage("same"), false)
	})
	b.Run("frame=out-of-process", func(b *testing.B) {
		benchFrameEvals(b, benchIsolatedBrowser(b), srv.URL+faultrows.FramePage("cross"), true)
	})
}

// benchIsolatedBrowser is benchBrowser with site isolation on.
func benchIsolatedBrowser(b *testing.B) *testbrowser.Browser {
	b.Helper()
	br, err := testbrowser.LaunchSiteIsolated()
	require.NoError(b, err)
	b.Cleanup(br.Close)
	return br
}

// The four calls of BenchmarkFrameEval.
const (
	ownFrame = iota
	guardFrame
	ownMain
	guardMain
	frameCalls
)

func benchFrameEvals(b *testing.B, br *testbrowser.Browser, url string, outOfProcess bool) {
	const aaBlock = 48 // a multiple of the 24 orders
	page, meter := meteredPage(b, br)
	benchLoad(b, page, url)
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 5*time.Minute)
	id := loadedFrame(b, ctx, w, outOfProcess)
	own := ownFrameEval(b, ctx, page, id, outOfProcess)
	raw := page.Context(ctx)

	evals := [frameCalls]func() (int, error){
		ownFrame: own,
		guardFrame: func() (int, error) {
			res, err := w.EvalFrame(ctx, id, frameJS)
			if err != nil {
				return 0, err
			}
			return res.Value.Int(), nil
		},
		ownMain: func() (int, error) {
			res, err := raw.Eval(frameJS)
			if err != nil {
				return 0, err
			}
			return res.Value.Int(), nil
		},
		guardMain: func() (int, error) {
			res, err := w.Eval(ctx, frameJS)
			if err != nil {
				return 0, err
			}
			return res.Value.Int(), nil
		},
	}
	var requests [frameCalls]int64
	timed := func(k int) time.Duration {
		defer func(n int64) { requests[k] += meter.Requests() - n }(meter.Requests())
		return benchutil.Time(func() {
			if n, err := evals[k](); err != nil || n != 1 {
				b.Fatalf("call %d = %v, %v; want 1", k, n, err)
			}
		})
	}
	for range 50 { // warm every path: compile caches, the frame's cached context
		for k := range frameCalls {
			timed(k)
		}
	}

	orders := permutations(frameCalls)
	var s [frameCalls]benchutil.Samples
	var odd, even benchutil.Samples
	requests = [frameCalls]int64{}
	i := 0
	for b.Loop() {
		for _, k := range orders[i%len(orders)] {
			s[k] = append(s[k], timed(k))
		}
		if r := s[ownFrame][len(s[ownFrame])-1]; (i/aaBlock)%2 == 0 {
			even = append(even, r)
		} else {
			odd = append(odd, r)
		}
		i++
	}
	var perCall [frameCalls]float64
	for k := range frameCalls {
		perCall[k] = float64(requests[k]) / float64(len(s[k]))
	}
	ownAllocs := benchutil.Allocs(allocCalls, func() { timed(ownFrame) })
	guardAllocs := benchutil.Allocs(allocCalls, func() { timed(guardFrame) })
	report(b, map[string]float64{
		"calls-each":             float64(len(s[ownFrame])),
		"own-p50-ms":             benchutil.Ms(s[ownFrame].Quantile(0.5)),
		"own-p99-ms":             benchutil.Ms(s[ownFrame].Quantile(0.99)),
		"tabguard-p50-ms":        benchutil.Ms(s[guardFrame].Quantile(0.5)),
		"tabguard-p99-ms":        benchutil.Ms(s[guardFrame].Quantile(0.99)),
		"p50-ratio":              benchutil.Ratio(s[guardFrame].Quantile(0.5), s[ownFrame].Quantile(0.5)),
		"p99-ratio":              benchutil.Ratio(s[guardFrame].Quantile(0.99), s[ownFrame].Quantile(0.99)),
		"aa-p50-ratio":           benchutil.Ratio(odd.Quantile(0.5), even.Quantile(0.5)),
		"main-own-p50-ms":        benchutil.Ms(s[ownMain].Quantile(0.5)),
		"main-tabguard-p50-ms":   benchutil.Ms(s[guardMain].Quantile(0.5)),
		"main-p50-ratio":         benchutil.Ratio(s[guardMain].Quantile(0.5), s[ownMain].Quantile(0.5)),
		"own-requests":           perCall[ownFrame],
		"tabguard-requests":      perCall[guardFrame],
		"main-tabguard-requests": perCall[guardMain],
		"own-allocs":             ownAllocs,
		"tabguard-allocs":        guardAllocs,
		"allocs-above-own":       guardAllocs - ownAllocs,
	})
}

// loadedFrame waits for w's tab to list one iframe, out of process or
// not as said, and for its page to load, and returns its ID.
func loadedFrame(b *testing.B, ctx context.Context, w *tabguard.Watcher, outOfProcess bool) string {
	b.Helper()
	var id string
	eventually(b, "the iframe", func() bool {
		fs := w.Frames()
		if len(fs) != 1 || fs[0].Loading || fs[0].OutOfProcess != outOfProcess {
			return false
		}
		id = fs[0].ID
		return true
	})
	res, err := w.EvalFrame(ctx, id, faultrows.TitleWhenLoaded)
	require.NoError(b, err)
	require.True(b, strings.HasPrefix(res.Value.Str(), "inner-"), "the iframe's title: %q", res.Value.Str())
	return id
}

// ownFrameEval returns the driver's own eval of frameJS in the iframe id
// of page: rod's frame.Eval in an iframe of the page's process, or
// Runtime.evaluate on a session of its own attached to the target of an
// out-of-process one.
func ownFrameEval(b *testing.B, ctx context.Context, page *rod.Page, id string, outOfProcess bool) func() (int, error) {
	b.Helper()
	if !outOfProcess {
		el, err := page.Context(ctx).Element("#a")
		require.NoError(b, err)
		frame, err := el.Frame()
		require.NoError(b, err)
		return func() (int, error) {
			res, err := frame.Eval(frameJS)
			if err != nil {
				return 0, err
			}
			return res.Value.Int(), nil
		}
	}
	browser := page.Browser()
	at, err := proto.TargetAttachToTarget{TargetID: proto.TargetTargetID(id), Flatten: true}.Call(browser.Context(ctx))
	require.NoError(b, err)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = proto.TargetDetachFromTarget{SessionID: at.SessionID}.Call(browser.Context(ctx))
	})
	params := proto.RuntimeEvaluate{Expression: "(" + frameJS + ")()", ReturnByValue: true, AwaitPromise: true}
	return func() (int, error) {
		raw, err := browser.Call(ctx, string(at.SessionID), params.ProtoReq(), params)
		if err != nil {
			return 0, err
		}
		var res proto.RuntimeEvaluateResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return 0, err
		}
		if res.ExceptionDetails != nil {
			return 0, fmt.Errorf("script threw: %s", res.ExceptionDetails.Text)
		}
		return res.Result.Value.Int(), nil
	}
}

// permutations returns every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := append(append(append([]int{}, p[:at]...), n-1), p[at:]...)
			out = append(out, q)
		}
	}
	return out
}

// BenchmarkFrameCrash crashes an out-of-process iframe with evals in flight
// in it and times how long Watcher.EvalFrame takes to return
// ErrFrameCrashed after Chrome's report of the crash reached rod. Each
// iteration is one run, with site isolation on: a fresh tab, watched
// through one BrowserWatcher, loads a page with an iframe of another site;
// frameCrashEvals evals of a promise that never settles wait in the
// iframe; the iframe's renderer is crashed with Page.crash on a session
// attached to its target. A run's cut-off is its last eval's; every eval's
// is reported too. The tab's main frame is evaluated with the crash in
// flight, and after: it must answer both times.
func BenchmarkFrameCrash(b *testing.B) {
	br := benchIsolatedBrowser(b)
	url := serve(b).URL + faultrows.FramePage("cross")
	bw, err := tabguard.WatchBrowser(br.Browser, &tabguard.Options{EvalTimeout: time.Minute})
	require.NoError(b, err)
	b.Cleanup(func() { _ = bw.Close() })
	ctx := testbrowser.Context(b, 5*time.Minute)

	var last, each, chrome, mainS benchutil.Samples
	mainErrors := 0
	for b.Loop() {
		r := frameCrashRun(b, ctx, br, bw, url)
		last, chrome = append(last, r.last), append(chrome, r.chrome)
		each = append(each, r.each...)
		mainS = append(mainS, r.main)
		mainErrors += r.mainErrors
	}
	report(b, map[string]float64{
		"runs":                 float64(len(last)),
		"evals-each-run":       frameCrashEvals,
		"last-p50-ms":          benchutil.Ms(last.Quantile(0.5)),
		"last-p95-ms":          benchutil.Ms(last.Quantile(0.95)),
		"last-max-ms":          benchutil.Ms(last.Quantile(1)),
		"each-p50-ms":          benchutil.Ms(each.Quantile(0.5)),
		"each-p95-ms":          benchutil.Ms(each.Quantile(0.95)),
		"chrome-report-p50-ms": benchutil.Ms(chrome.Quantile(0.5)),
		"chrome-report-p95-ms": benchutil.Ms(chrome.Quantile(0.95)),
		"main-p50-ms":          benchutil.Ms(mainS.Quantile(0.5)),
		"main-p95-ms":          benchutil.Ms(mainS.Quantile(0.95)),
		"main-errors":          float64(mainErrors),
	})
}

// frameCrashEvals is how many evals wait in the iframe when it crashes.
const frameCrashEvals = 20

// frameCrash is what one run of BenchmarkFrameCrash showed.
type frameCrash struct {
	each       []time.Duration // each eval's return, after Chrome's report
	last       time.Duration   // the last of each
	chrome     time.Duration   // Chrome's report, after the Page.crash request
	main       time.Duration   // the main frame's eval sent with the crash
	mainErrors int             // main frame evals that did not answer 1
}

func frameCrashRun(b *testing.B, ctx context.Context, br *testbrowser.Browser, bw *tabguard.BrowserWatcher, url string) frameCrash {
	b.Helper()
	page, closePage := benchTab(b, ctx, br)
	defer closePage()
	w, err := bw.Watch(page)
	require.NoError(b, err)
	defer func() { _ = w.Close() }()
	nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(b, w.Navigate(nctx, url))
	id := loadedFrame(b, nctx, w, true)

	evals := make([]<-chan answer, frameCrashEvals)
	for k := range evals {
		evals[k] = async(func() error { _, err := w.EvalFrame(ctx, id, pendingJS); return err })
	}
	eventually(b, "the evals to be in flight", func() bool {
		res, err := w.EvalFrame(nctx, id, `() => window.__pending || 0`)
		return err == nil && res.Value.Int() >= frameCrashEvals
	})

	start, reported, done := crashFrameTarget(b, ctx, page.Browser(), id)
	defer done()
	mainC := async(func() error { return mainAnswers(ctx, w) })
	var r frameCrash
	var at time.Time
	select {
	case at = <-reported:
		r.chrome = at.Sub(start)
	case <-time.After(10 * time.Second):
		b.Fatal("Chrome reported no crash of the iframe within 10s")
	}
	for _, ch := range evals {
		a := await(b, ch, "Watcher.EvalFrame")
		if !errors.Is(a.err, tabguard.ErrFrameCrashed) {
			b.Fatalf("Watcher.EvalFrame() in a crashing iframe = %v; want ErrFrameCrashed", a.err)
		}
		r.each = append(r.each, a.at.Sub(at))
		r.last = max(r.last, a.at.Sub(at))
	}
	m := await(b, mainC, "Watcher.Eval in the main frame")
	r.main = m.at.Sub(start)
	if m.err != nil {
		b.Logf("main frame, with the crash: %v", m.err)
		r.mainErrors++
	}
	if err := mainAnswers(ctx, w); err != nil {
		b.Logf("main frame, after the crash: %v", err)
		r.mainErrors++
	}
	return r
}

// mainAnswers evaluates in w's main frame, within 10 s, and says why it
// did not answer 1.
func mainAnswers(ctx context.Context, w *tabguard.Watcher) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := w.Eval(ctx, frameJS)
	switch {
	case err != nil:
		return err
	case res.Value.Int() != 1:
		return fmt.Errorf("answered %v; want 1", res.Value)
	}
	return nil
}

// benchTab opens a blank tab on br and returns it with a func that
// closes it.
func benchTab(b *testing.B, ctx context.Context, br *testbrowser.Browser) (*rod.Page, func()) {
	b.Helper()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(br.Context(tctx))
	require.NoError(b, err)
	page, err := br.PageFromTarget(target.TargetID)
	require.NoError(b, err)
	return page, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: target.TargetID}.Call(br.Context(ctx))
	}
}

// crashFrameTarget crashes the renderer of the out-of-process iframe id:
// it attaches to the iframe's target and sends Page.crash there. It
// returns when the request went out, a channel that gets the time
// Chrome's Target.targetCrashed for the iframe reached rod, and a func to
// call at the end of the run, which waits for the helper goroutines.
func crashFrameTarget(b *testing.B, ctx context.Context, browser *rod.Browser, id string) (time.Time, <-chan time.Time, func()) {
	b.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	reported := make(chan time.Time, 1)
	wait := browser.Context(ctx).EachEvent(func(e *proto.TargetTargetCrashed) bool {
		if string(e.TargetID) != id {
			return false
		}
		reported <- time.Now()
		return true
	})
	at, err := proto.TargetAttachToTarget{TargetID: proto.TargetTargetID(id), Flatten: true}.Call(browser.Context(ctx))
	if err != nil {
		cancel()
		b.Fatalf("attach to the iframe's target: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); wait() }()
	start := time.Now()
	go func() {
		defer wg.Done()
		// A crashed renderer never answers Page.crash: ctx bounds it.
		_, _ = browser.Call(ctx, string(at.SessionID), "Page.crash", nil)
	}()
	return start, reported, func() { cancel(); wg.Wait() }
}
