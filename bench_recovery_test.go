//go:build go1.24

package tabguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// benchRecovery is one way to break a tab and bring it back with a raw CDP
// call, as a user of rod would.
type benchRecovery struct {
	name    string
	connect bool // the watched tab is reached through Connect
	reason  error
	fault   func(b *testing.B, page *rod.Page) // returns once Chrome reported it
	recover func(ctx context.Context, page *rod.Page) error
}

// BenchmarkRecovery times recovery to the first answered eval: from the
// recovering call (made with rod or raw CDP, not through the watcher) to
// the first eval that answers, on a watched tab with Watcher.Eval and on a
// tab of rod's alone with page.Eval, one cycle of each per iteration in
// alternating order. A refusal of the watched tab after the recovery is
// stale: it is counted, and the eval is tried again until it answers. The
// last path reaches the watched tab through Connect, whose transport needs
// no barrier: it counts stale refusals where the watcher makes no marker
// call (it runs last, as closing its connection closes the browser).
func BenchmarkRecovery(b *testing.B) {
	br := benchBrowser(b)
	srv := serve(b)
	home := srv.URL + "/"
	dialogOpened := func(b *testing.B, page *rod.Page) {
		ctx := testbrowser.Context(b, 10*time.Second)
		wait := page.Context(ctx).WaitEvent(&proto.PageJavascriptDialogOpening{})
		_, err := proto.RuntimeEvaluate{Expression: `setTimeout(() => alert("hi"), 0)`}.Call(page.Context(ctx))
		require.NoError(b, err)
		wait()
	}
	reload := func(ctx context.Context, p *rod.Page) error { return proto.PageReload{}.Call(p.Context(ctx)) }
	paths := []benchRecovery{
		{"path=crash+Navigate", false, tabguard.ErrTabCrashed, func(b *testing.B, p *rod.Page) { crash(b, p) },
			func(ctx context.Context, p *rod.Page) error { return p.Context(ctx).Navigate(home) }},
		{"path=crash+PageReload", false, tabguard.ErrTabCrashed, func(b *testing.B, p *rod.Page) { crash(b, p) }, reload},
		{"path=no-document+Navigate", false, tabguard.ErrNoDocument,
			func(b *testing.B, p *rod.Page) { require.Error(b, navigate(b, p, testbrowser.DeadURL(b))) },
			func(ctx context.Context, p *rod.Page) error { return p.Context(ctx).Navigate(home) }},
		{"path=alert+HandleJavaScriptDialog", false, tabguard.ErrDialogOpen, dialogOpened,
			func(ctx context.Context, p *rod.Page) error {
				return proto.PageHandleJavaScriptDialog{Accept: true}.Call(p.Context(ctx))
			}},
		{"path=crash+PageReload,transport=Connect", true, tabguard.ErrTabCrashed, func(b *testing.B, p *rod.Page) { crash(b, p) }, reload},
	}
	for _, path := range paths {
		b.Run(path.name, func(b *testing.B) {
			open := benchPage
			if path.connect {
				open = connectedPage
			}
			watched, plain := open(b, br, home), benchPage(b, br, home)
			w := watch(b, watched, &tabguard.Options{EvalTimeout: 10 * time.Second})
			ctx := testbrowser.Context(b, 5*time.Minute)
			var guard, raw benchutil.Samples
			stale, i := 0, 0
			for b.Loop() {
				cycles := []func(){
					func() {
						path.fault(b, watched)
						eventually(b, "the refusal", blockedBy(b, w, path.reason))
						d, n := recoverWatched(b, ctx, watched, w, path)
						guard, stale = append(guard, d), stale+n
					},
					func() {
						path.fault(b, plain)
						raw = append(raw, recoverPlain(b, ctx, plain, path))
					},
				}
				cycles[i%2]()
				cycles[(i+1)%2]()
				i++
			}
			report(b, map[string]float64{
				"tabguard-p50-ms": benchutil.Ms(guard.Quantile(0.5)),
				"rod-p50-ms":      benchutil.Ms(raw.Quantile(0.5)),
				"p50-ratio":       benchutil.Ratio(guard.Quantile(0.5), raw.Quantile(0.5)),
				"stale-refusals":  float64(stale),
				"cycles":          float64(len(guard)),
				"tabguard-p95-ms": benchutil.Ms(guard.Quantile(0.95)),
				"rod-p95-ms":      benchutil.Ms(raw.Quantile(0.95)),
			})
		})
	}
}

// recoverWatched recovers the watched tab and evaluates at once, counting
// the stale refusals before the first answer.
func recoverWatched(b *testing.B, ctx context.Context, page *rod.Page, w *tabguard.Watcher, path benchRecovery) (time.Duration, int) {
	start := time.Now()
	require.NoError(b, path.recover(ctx, page))
	for stale := 0; ; stale++ {
		_, err := w.Eval(ctx, `() => 1`)
		if err == nil {
			return time.Since(start), stale
		}
		if !errors.Is(err, path.reason) {
			b.Fatalf("eval after recovery: %v", err)
		}
	}
}

// recoverPlain recovers a tab of rod's alone and evaluates with page.Eval.
func recoverPlain(b *testing.B, ctx context.Context, page *rod.Page, path benchRecovery) time.Duration {
	start := time.Now()
	require.NoError(b, path.recover(ctx, page))
	_, err := page.Context(ctx).Eval(`() => 1`)
	require.NoError(b, err)
	return time.Since(start)
}
