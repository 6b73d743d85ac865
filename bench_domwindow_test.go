//go:build go1.24

package tabguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// BenchmarkDOMWindows reads a 5 MB page of 1- to 4-byte runes in windows
// of 100 KB, over a connection that counts the bytes it reads. Each
// iteration times, in rotating order: the first window of a new snapshot;
// the floor, an eval of outerHTML.length (the renderer's serialisation and
// nothing else); the whole page window by window; and one read of the full
// outerHTML. Before timing, the windows are checked to join up to the page.
func BenchmarkDOMWindows(b *testing.B) {
	const max = tabguard.DefaultMaxDOMBytes
	page, meter := meteredPage(b, benchBrowser(b))
	benchLoad(b, page, serve(b).URL+"/big?kb=5120")
	w := watch(b, page, &tabguard.Options{EvalTimeout: 30 * time.Second})
	ctx := testbrowser.Context(b, 10*time.Minute)
	raw := page.Context(ctx)

	full, err := raw.Eval(`() => document.documentElement.outerHTML`)
	require.NoError(b, err)
	whole := full.Value.Str()

	readAllWindows := func() (string, int, int64) {
		var opts tabguard.DOMOptions
		opts.MaxBytes = max
		got, n, most := "", 0, int64(0)
		for {
			before := meter.BytesRead()
			win, err := w.ReadDOM(ctx, opts)
			if err != nil {
				b.Fatalf("ReadDOM() error: %v", err)
			}
			most = max64(most, meter.BytesRead()-before)
			got += win.Content
			n++
			if win.NextOffset == 0 {
				return got, n, most
			}
			opts.Snapshot, opts.Offset = win.Snapshot, win.NextOffset
		}
	}
	got, windows, _ := readAllWindows()
	require.True(b, got == whole, "the windows do not join up to outerHTML")

	var first, floor, all, fullRead benchutil.Samples
	var wireMost int64
	steps := []func(){
		func() {
			first = append(first, benchutil.Time(func() {
				win, err := w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: max})
				if err != nil {
					b.Fatalf("ReadDOM() error: %v", err)
				}
				_ = win
			}))
		},
		func() {
			floor = append(floor, benchutil.Time(func() {
				if _, err := raw.Eval(`() => document.documentElement.outerHTML.length`); err != nil {
					b.Fatalf("floor: %v", err)
				}
			}))
		},
		func() {
			all = append(all, benchutil.Time(func() {
				_, _, most := readAllWindows()
				wireMost = max64(wireMost, most)
			}))
		},
		func() {
			fullRead = append(fullRead, benchutil.Time(func() {
				if _, err := raw.Eval(`() => document.documentElement.outerHTML`); err != nil {
					b.Fatalf("full: %v", err)
				}
			}))
		},
	}
	i := 0
	for b.Loop() {
		for j := range steps {
			steps[(i+j)%len(steps)]()
		}
		i++
	}
	report(b, map[string]float64{
		"window-ms":        benchutil.Ms(first.Quantile(0.5)),
		"floor-ms":         benchutil.Ms(floor.Quantile(0.5)),
		"window/floor":     benchutil.Ratio(first.Quantile(0.5), floor.Quantile(0.5)),
		"all-windows-ms":   benchutil.Ms(all.Quantile(0.5)),
		"full-ms":          benchutil.Ms(fullRead.Quantile(0.5)),
		"all-windows/full": benchutil.Ratio(all.Quantile(0.5), fullRead.Quantile(0.5)),
		"windows":          float64(windows),
		"wire-bytes/cap":   float64(wireMost) / max,
		"page-bytes":       float64(len(whole)),
	})
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
