package chromedpguard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/benchutil"
)

// clickPage is a button that counts the clicks it receives.
const clickPage = `<!doctype html><title>click</title><button id=t onclick="clicks++">Go</button><script>var clicks = 0</script>`

// BenchmarkChromedpClick compares chromedpguard's Watcher.Click on "#t"
// with plain chromedp's click, chromedp.Run of chromedp.Click on
// chromedp.CSS("#t"), on the same healthy button: each finds the element
// every time. Two more arms send only input, at the button's centre, to
// tell where the time goes: the three CDP Input events a guarded click
// sends (a mouse move, a press, a release) and the two chromedp sends (a
// press and a release). Each iteration makes one call of each, in
// rotating order; the A/A figure splits the plain clicks into odd and even
// blocks of aaBlock. Then the allocations of allocClicks clicks of the
// two clicks are counted, and the page's count of the clicks it received
// is checked against the clicks made.
func BenchmarkChromedpClick(b *testing.B) {
	const (
		aaBlock     = 20
		allocClicks = 20
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, clickPage) }))
	b.Cleanup(srv.Close)
	tab, w := benchTab(b)
	require.NoError(b, w.Navigate(within(b, 30*time.Second), srv.URL))
	_, err := w.Wait(within(b, 30*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(b, err)
	ctx, cancel := context.WithTimeout(tab, 10*time.Minute)
	defer cancel()
	acted, err := w.Click(ctx, "#t")
	require.NoError(b, err)
	x, y := acted.X, acted.Y

	clicks := 0
	timed := func(name string, f func() error) func() time.Duration {
		return func() time.Duration {
			clicks++
			return benchutil.Time(func() {
				if err := f(); err != nil {
					b.Fatalf("%s = %v", name, err)
				}
			})
		}
	}
	// mouse is one mouse event at the button's centre, as Watcher.Click
	// sends it: a move with no button, a press or release of the left one.
	mouse := func(typ input.DispatchMouseEventType) chromedp.Action[chromedp.Void] {
		return chromedp.MouseEvent(typ, x, y, func(p *input.DispatchMouseEventParams) {
			switch typ {
			case chromedp.MousePressed:
				p.Button, p.Buttons, p.ClickCount = input.MouseButtonLeft, 1, 1
			case chromedp.MouseReleased:
				p.Button, p.ClickCount = input.MouseButtonLeft, 1
			}
		})
	}
	const plain, guard, guardInput, plainInput = 0, 1, 2, 3
	arms := [4]func() time.Duration{
		plain: timed("chromedp.Click()", func() error { return chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#t"))) }),
		guard: timed("Watcher.Click()", func() error {
			acted, err := w.Click(ctx, "#t")
			if err == nil && acted.Received == "" {
				err = fmt.Errorf("%+v: the button received no click", acted)
			}
			return err
		}),
		guardInput: timed("move, press, release", func() error {
			return chromedp.Do(ctx, mouse(chromedp.MouseMoved), mouse(chromedp.MousePressed), mouse(chromedp.MouseReleased))
		}),
		plainInput: timed("press, release", func() error {
			return chromedp.Do(ctx, mouse(chromedp.MousePressed), mouse(chromedp.MouseReleased))
		}),
	}
	for range 10 { // warm every path: chromedp's buffers, the page's scripts
		for _, arm := range arms {
			arm()
		}
	}

	var s [4]benchutil.Samples
	var oddS, evenS benchutil.Samples
	i := 0
	for b.Loop() {
		for k := range arms {
			a := (i + k) % len(arms)
			s[a] = append(s[a], arms[a]())
		}
		if p := s[plain][len(s[plain])-1]; (i/aaBlock)%2 == 0 {
			evenS = append(evenS, p)
		} else {
			oddS = append(oddS, p)
		}
		i++
	}
	plainAllocs := benchutil.Allocs(allocClicks, func() { arms[plain]() })
	guardAllocs := benchutil.Allocs(allocClicks, func() { arms[guard]() })
	received, err := chromedp.Run(ctx, chromedp.Evaluate[int]("clicks"))
	require.NoError(b, err)
	require.Equal(b, clicks+1, received, "clicks the button received")
	p50 := func(k int) time.Duration { return s[k].Quantile(0.5) }
	report(b, map[string]float64{
		"clicks-each":               float64(len(s[plain])),
		"plain-p50-ms":              benchutil.Ms(p50(plain)),
		"plain-p95-ms":              benchutil.Ms(s[plain].Quantile(0.95)),
		"guarded-p50-ms":            benchutil.Ms(p50(guard)),
		"guarded-p95-ms":            benchutil.Ms(s[guard].Quantile(0.95)),
		"p50-ratio":                 benchutil.Ratio(p50(guard), p50(plain)),
		"p95-ratio":                 benchutil.Ratio(s[guard].Quantile(0.95), s[plain].Quantile(0.95)),
		"aa-p50-ratio":              benchutil.Ratio(oddS.Quantile(0.5), evenS.Quantile(0.5)),
		"move-press-release-p50-ms": benchutil.Ms(p50(guardInput)),
		"press-release-p50-ms":      benchutil.Ms(p50(plainInput)),
		"move-ratio":                benchutil.Ratio(p50(guardInput), p50(plainInput)),
		"move-press-release/plain":  benchutil.Ratio(p50(guardInput), p50(plain)),
		"plain-allocs":              plainAllocs,
		"guarded-allocs":            guardAllocs,
	})
}
