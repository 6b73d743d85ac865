package chromedpguard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// BenchmarkChromedpFrameEval compares chromedpguard's Watcher.EvalFrame
// with chromedp's own eval in the same iframe, on a loaded, watched tab
// of a page with one iframe. With site isolation off (frame=in-process),
// the iframe is of the page's site and chromedp's own eval is
// chromedp.CallFunctionOn on the iframe's document, resolved once, as
// chromedp has no frame eval of its own. With it on (frame=out-of-process),
// the iframe is of another site, in a renderer process of its own, and
// chromedp's own eval is chromedp.Evaluate, awaiting the promise, on a
// chromedp context of the iframe's target (chromedp.WithTargetID). Each
// iteration makes one call of each, and one of Watcher.Eval and plain
// chromedp.Evaluate in the tab's main frame, in an order that goes through
// all 24 over 24 iterations; then the allocations of 1,000 calls of each
// frame eval are counted.
func BenchmarkChromedpFrameEval(b *testing.B) {
	srv := serve(b)
	b.Run("frame=in-process", func(b *testing.B) {
		benchChromedpFrameEvals(b, launch, srv.URL+faultrows.FramePage("same"), false)
	})
	b.Run("frame=out-of-process", func(b *testing.B) {
		benchChromedpFrameEvals(b, launchIsolated, srv.URL+faultrows.FramePage("cross"), true)
	})
}

// frameJS is the function the frame benchmark evaluates.
const frameJS = `() => 1`

// The four calls of BenchmarkChromedpFrameEval.
const (
	ownFrame = iota
	guardFrame
	ownMain
	guardMain
	frameCalls
)

func benchChromedpFrameEvals(b *testing.B, start func() (context.Context, func(), error), url string, outOfProcess bool) {
	const aaBlock = 48 // a multiple of the 24 orders
	browser, stop, err := start()
	require.NoError(b, err, "start Chromium")
	b.Cleanup(stop)
	tab, cancel := chromedp.NewContext(browser)
	b.Cleanup(cancel)
	require.NoError(b, chromedp.Do(tab), "open a tab")
	w, err := chromedpguard.Watch(tab, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = w.Close() })
	require.NoError(b, w.Navigate(within(b, 30*time.Second), url))
	ctx, cancelCtx := context.WithTimeout(tab, 5*time.Minute)
	defer cancelCtx()
	id := loadedFrame(b, ctx, w, outOfProcess)
	own := ownFrameEval(b, ctx, tab, id, outOfProcess)

	one := func(what string, n int, err error) {
		if err != nil || n != 1 {
			b.Fatalf("%s = %v, %v; want 1", what, n, err)
		}
	}
	guarded := func(what string, eval func() (*runtime.RemoteObject, error)) func() {
		return func() {
			res, err := eval()
			if err != nil || string(res.Value) != "1" {
				b.Fatalf("%s = %v, %v; want 1", what, res, err)
			}
		}
	}
	calls := [frameCalls]func(){
		ownFrame:   func() { n, err := own(); one("chromedp's frame eval", n, err) },
		guardFrame: guarded("Watcher.EvalFrame", func() (*runtime.RemoteObject, error) { return w.EvalFrame(ctx, id, frameJS) }),
		ownMain: func() {
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(`+frameJS+`)()`))
			one("chromedp.Evaluate", n, err)
		},
		guardMain: guarded("Watcher.Eval", func() (*runtime.RemoteObject, error) { return w.Eval(ctx, frameJS) }),
	}
	for range 50 { // warm every path: V8's compile cache, chromedp's buffers
		for _, call := range calls {
			call()
		}
	}

	orders := permutations(frameCalls)
	var s [frameCalls]benchutil.Samples
	var odd, even benchutil.Samples
	i := 0
	for b.Loop() {
		for _, k := range orders[i%len(orders)] {
			s[k] = append(s[k], benchutil.Time(calls[k]))
		}
		if r := s[ownFrame][len(s[ownFrame])-1]; (i/aaBlock)%2 == 0 {
			even = append(even, r)
		} else {
			odd = append(odd, r)
		}
		i++
	}
	const allocCalls = 1000 // counted after the timed calls
	ownAllocs := benchutil.Allocs(allocCalls, calls[ownFrame])
	guardAllocs := benchutil.Allocs(allocCalls, calls[guardFrame])
	report(b, map[string]float64{
		"calls-each":          float64(len(s[ownFrame])),
		"own-p50-ms":          benchutil.Ms(s[ownFrame].Quantile(0.5)),
		"own-p99-ms":          benchutil.Ms(s[ownFrame].Quantile(0.99)),
		"guarded-p50-ms":      benchutil.Ms(s[guardFrame].Quantile(0.5)),
		"guarded-p99-ms":      benchutil.Ms(s[guardFrame].Quantile(0.99)),
		"p50-ratio":           benchutil.Ratio(s[guardFrame].Quantile(0.5), s[ownFrame].Quantile(0.5)),
		"p99-ratio":           benchutil.Ratio(s[guardFrame].Quantile(0.99), s[ownFrame].Quantile(0.99)),
		"aa-p50-ratio":        benchutil.Ratio(odd.Quantile(0.5), even.Quantile(0.5)),
		"main-plain-p50-ms":   benchutil.Ms(s[ownMain].Quantile(0.5)),
		"main-guarded-p50-ms": benchutil.Ms(s[guardMain].Quantile(0.5)),
		"main-p50-ratio":      benchutil.Ratio(s[guardMain].Quantile(0.5), s[ownMain].Quantile(0.5)),
		"own-allocs":          ownAllocs,
		"guarded-allocs":      guardAllocs,
		"allocs-above-own":    guardAllocs - ownAllocs,
	})
}

// loadedFrame waits for w's tab to list one iframe, out of process or not
// as said, and for its page to load, and returns its ID.
func loadedFrame(b *testing.B, ctx context.Context, w *chromedpguard.Watcher, outOfProcess bool) string {
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
	require.True(b, strings.HasPrefix(string(res.Value), `"inner-`), "the iframe's title: %s", res.Value)
	return id
}

// ownFrameEval returns chromedp's own eval of frameJS in the iframe id of
// tab: chromedp.CallFunctionOn on the document of an iframe in the tab's
// process, or chromedp.Evaluate on a chromedp context of the target of an
// out-of-process one.
func ownFrameEval(b *testing.B, ctx, tab context.Context, id string, outOfProcess bool) func() (int, error) {
	b.Helper()
	if outOfProcess {
		// Detach on cancel: closing an iframe's target closes its tab.
		fctx, cancel := chromedp.NewContext(tab, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
		b.Cleanup(cancel)
		require.NoError(b, chromedp.Do(fctx), "attach to the iframe's target")
		eval := chromedp.Evaluate[int](`(`+frameJS+`)()`, chromedp.EvalAwaitPromise)
		return func() (int, error) { return chromedp.Run(fctx, eval) }
	}
	owner, err := chromedp.Call(ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(id)})
	require.NoError(b, err)
	node, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: owner.BackendNodeID})
	require.NoError(b, err)
	require.NotNil(b, node.Node.ContentDocument, "the iframe's document")
	doc, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node.Node.ContentDocument.BackendNodeID})
	require.NoError(b, err)
	awaited := true
	eval := chromedp.CallFunctionOn[int](frameJS, func(p *runtime.CallFunctionOnParams) {
		p.ObjectID, p.AwaitPromise = doc.Object.ObjectID, &awaited
	})
	return func() (int, error) { return chromedp.Run(ctx, eval) }
}

// permutations returns every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			out = append(out, append(append(append([]int{}, p[:at]...), n-1), p[at:]...))
		}
	}
	return out
}
