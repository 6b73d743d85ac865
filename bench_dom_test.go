//go:build go1.24

package tabguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// BenchmarkDOM5MB reads a generated 5 MB page three ways, in rotating
// order each iteration, over a connection that counts the bytes it reads:
// Watcher.DOM with the default cap; rod's page.Eval of the full outerHTML
// followed by TruncateDOM; and the floor, an eval of outerHTML.length,
// which costs the renderer's serialisation and nothing else. Each iteration
// also times the first and the last three more times. The page mixes
// 1- to 4-byte runes, the case where the exact UTF-8 size costs the most.
func BenchmarkDOM5MB(b *testing.B) {
	const (
		max        = tabguard.DefaultMaxDOMBytes
		extraPairs = 3
		fullJS     = `() => document.documentElement.outerHTML`
		lenJS      = `() => document.documentElement.outerHTML.length`
	)
	page, meter := meteredPage(b, benchBrowser(b))
	benchLoad(b, page, serve(b).URL+"/big?kb=5120")
	w := watch(b, page, &tabguard.Options{EvalTimeout: 30 * time.Second})
	ctx := testbrowser.Context(b, 5*time.Minute)
	raw := page.Context(ctx)

	// What Watcher.DOM returns must be what TruncateDOM makes of the whole.
	res, err := raw.Eval(fullJS)
	require.NoError(b, err)
	whole := res.Value.Str()
	dom, err := w.DOM(ctx, max)
	require.NoError(b, err)
	want, _ := tabguard.TruncateDOM(whole, max)
	require.Equal(b, len(whole), dom.Size, "DOM.Size is not the UTF-8 size of outerHTML")
	require.True(b, dom.HTML == want && dom.Truncated, "DOM.HTML differs from TruncateDOM(outerHTML)")

	type way struct {
		name  string
		read  func()
		times benchutil.Samples
		bytes int64 // read over the socket, last call
	}
	ways := []*way{
		{name: "tabguard", read: func() {
			if _, err := w.DOM(ctx, max); err != nil {
				b.Fatalf("Watcher.DOM() error: %v", err)
			}
		}},
		{name: "full", read: func() {
			res, err := raw.Eval(fullJS)
			if err != nil {
				b.Fatalf("page.Eval(outerHTML) error: %v", err)
			}
			tabguard.TruncateDOM(res.Value.Str(), max)
		}},
		{name: "floor", read: func() {
			if _, err := raw.Eval(lenJS); err != nil {
				b.Fatalf("page.Eval(outerHTML.length) error: %v", err)
			}
		}},
	}
	measure := func(wy *way) {
		before := meter.BytesRead()
		wy.times = append(wy.times, benchutil.Time(wy.read))
		wy.bytes = meter.BytesRead() - before
	}
	i := 0
	for b.Loop() {
		for j := range ways {
			measure(ways[(i+j)%len(ways)])
		}
		// The full read takes seconds; the other two are cheap, and their
		// ratio is the closer call, so they get more samples.
		for r := range extraPairs {
			guard, floor := ways[0], ways[2]
			if (i+r)%2 == 1 {
				guard, floor = floor, guard
			}
			measure(guard)
			measure(floor)
		}
		i++
	}
	m := map[string]float64{
		"page-bytes": float64(dom.Size),
		"cap-bytes":  max,
		"size-exact": 1, // checked above; a mismatch fails the benchmark
	}
	for _, wy := range ways {
		m[wy.name+"-ms"] = benchutil.Ms(wy.times.Quantile(0.5))
		m[wy.name+"-bytes"] = float64(wy.bytes)
	}
	tg, full, floor := ways[0].times.Quantile(0.5), ways[1].times.Quantile(0.5), ways[2].times.Quantile(0.5)
	m["full/tabguard"] = benchutil.Ratio(full, tg)
	m["tabguard/floor"] = benchutil.Ratio(tg, floor)
	m["bytes/cap"] = float64(ways[0].bytes) / max
	report(b, m)
}

// meteredPage opens a blank tab on br through a second DevTools
// connection whose bytes are counted; the connection closes when b ends.
func meteredPage(b *testing.B, br *testbrowser.Browser) (*rod.Page, *wsmeter.Meter) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mb, meter, err := wsmeter.Connect(ctx, br.Launcher.Get(flags.UserDataDir))
	require.NoError(b, err)
	b.Cleanup(func() { _ = meter.Close() })
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(mb.Context(ctx))
	require.NoError(b, err)
	page, err := mb.PageFromTarget(target.TargetID)
	require.NoError(b, err)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: target.TargetID}.Call(mb.Context(ctx))
	})
	return page, meter
}

// TestDOMChunkBoundaries checks the chunked UTF-8 count of Watcher.DOM
// where it can go wrong: a surrogate pair or a lone surrogate across the
// edge of a 16384-unit chunk, and text spanning several chunks.
func TestDOMChunkBoundaries(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 30*time.Second)
	raw := page.Context(ctx)
	tests := []struct {
		name, at string // at goes where a chunk ends
		max      int
	}{
		{"pair across the edge", "😀", 0},
		{"lone high surrogate at the edge", `\ud800`, 0},
		{"lone low surrogate after the edge", `\udc00`, 0},
		{"several chunks, small cap", "👩‍💻日本語é", 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Fill the body so that tt.at starts at UTF-16 unit 16383 of
			// outerHTML, then add text past three more chunk edges.
			_, err := raw.Eval(`(at) => {
				at = JSON.parse('"' + at + '"'); // a Go string cannot hold a lone surrogate
				document.body.textContent = "";
				const pad = 16383 - document.documentElement.outerHTML.indexOf("</body>");
				document.body.textContent = "a".repeat(pad) + at + "ü日😀".repeat(12000);
			}`, tt.at)
			require.NoError(t, err)
			res, err := raw.Eval(`() => document.documentElement.outerHTML`)
			require.NoError(t, err)
			whole := res.Value.Str()

			dom, err := w.DOM(ctx, tt.max)
			require.NoError(t, err)
			want, truncated := tabguard.TruncateDOM(whole, tt.max)
			assert.Equal(t, len(whole), dom.Size, "Size is not the UTF-8 size of outerHTML")
			assert.Equal(t, truncated, dom.Truncated)
			assert.True(t, want == dom.HTML, "DOM.HTML differs from TruncateDOM(outerHTML): %d vs %d bytes", len(dom.HTML), len(want))
		})
	}
}
