//go:build go1.24

package tabguard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// clickPage is a button that counts the clicks it receives.
const clickPage = `<!doctype html><title>click</title><button id=t onclick="clicks++">Go</button><script>var clicks = 0</script>`

// clickServer serves clickPage at "/" from 127.0.0.1.
func clickServer(b *testing.B) *httptest.Server {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, clickPage) }))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkClick compares a guarded click, Watcher.Act of ActionClick on
// "#t", with rod's own, page.Element("#t") then el.Click, on the same
// healthy button: each finds the element every time, as a program that
// clicks once does. Each iteration makes one click of each, in alternating
// order; the A/A figure splits rod's into odd and even blocks of aaBlock.
// The tab is reached through a connection that counts the CDP requests
// each click sends. Then the allocations of allocClicks clicks of each are
// counted, and the page's count of the clicks it received is checked
// against the clicks made.
func BenchmarkClick(b *testing.B) {
	const (
		aaBlock     = 20
		allocClicks = 20
	)
	page, meter := meteredPage(b, benchBrowser(b))
	benchLoad(b, page, clickServer(b).URL)
	w := watch(b, page, nil)
	ctx := testbrowser.Context(b, 10*time.Minute)
	raw := page.Context(ctx)
	click := tabguard.Action{Kind: tabguard.ActionClick, Selector: "#t"}

	clicks := 0
	var rodReqs, guardReqs int64
	rodClick := func() time.Duration {
		defer func(n int64) { rodReqs += meter.Requests() - n }(meter.Requests())
		clicks++
		return benchutil.Time(func() {
			el, err := raw.Element("#t")
			if err == nil {
				err = el.Click(proto.InputMouseButtonLeft, 1)
			}
			if err != nil {
				b.Fatalf("el.Click() = %v", err)
			}
		})
	}
	guardedClick := func() time.Duration {
		defer func(n int64) { guardReqs += meter.Requests() - n }(meter.Requests())
		clicks++
		return benchutil.Time(func() {
			acted, err := w.Act(ctx, click)
			if err != nil || acted.Received == "" {
				b.Fatalf("Watcher.Act() = %+v, %v; want the button to receive the click", acted, err)
			}
		})
	}
	for range 10 { // warm both paths: rod's helpers, the page's scripts
		rodClick()
		guardedClick()
	}

	var rodS, guardS, oddS, evenS benchutil.Samples
	rodReqs, guardReqs = 0, 0
	i := 0
	for b.Loop() {
		var r, g time.Duration
		if i%2 == 0 {
			r, g = rodClick(), guardedClick()
		} else {
			g, r = guardedClick(), rodClick()
		}
		rodS, guardS = append(rodS, r), append(guardS, g)
		if (i/aaBlock)%2 == 0 {
			evenS = append(evenS, r)
		} else {
			oddS = append(oddS, r)
		}
		i++
	}
	rodPerCall, guardPerCall := float64(rodReqs)/float64(len(rodS)), float64(guardReqs)/float64(len(guardS))
	rodAllocs, guardAllocs := benchutil.Allocs(allocClicks, func() { rodClick() }), benchutil.Allocs(allocClicks, func() { guardedClick() })
	requireClicks(b, raw, clicks)
	report(b, map[string]float64{
		"clicks-each":       float64(len(rodS)),
		"rod-p50-ms":        benchutil.Ms(rodS.Quantile(0.5)),
		"rod-p95-ms":        benchutil.Ms(rodS.Quantile(0.95)),
		"tabguard-p50-ms":   benchutil.Ms(guardS.Quantile(0.5)),
		"tabguard-p95-ms":   benchutil.Ms(guardS.Quantile(0.95)),
		"p50-ratio":         benchutil.Ratio(guardS.Quantile(0.5), rodS.Quantile(0.5)),
		"p95-ratio":         benchutil.Ratio(guardS.Quantile(0.95), rodS.Quantile(0.95)),
		"aa-p50-ratio":      benchutil.Ratio(oddS.Quantile(0.5), evenS.Quantile(0.5)),
		"rod-requests":      rodPerCall,
		"tabguard-requests": guardPerCall,
		"rod-allocs":        rodAllocs,
		"tabguard-allocs":   guardAllocs,
	})
}

// requireClicks fails b unless the page's button received want clicks:
// every click of both kinds reached it, and no other did.
func requireClicks(b *testing.B, page *rod.Page, want int) {
	b.Helper()
	res, err := page.Eval(`() => clicks`)
	require.NoError(b, err)
	require.Equal(b, want, res.Value.Int(), "clicks the button received")
}
