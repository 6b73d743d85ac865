//go:build go1.24

package tabguard_test

import (
	"testing"
	"time"

	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/wsmeter"
)

// BenchmarkTransport compares Connect's transport with rod's own on the
// healthy path: the same tab, reached over one connection of each kind,
// each evaluating with rod's page.Eval, one call of each per iteration in
// alternating order.
func BenchmarkTransport(b *testing.B) {
	br := benchBrowser(b)
	ctx := testbrowser.Context(b, 5*time.Minute)
	wsURL, err := wsmeter.ActivePortURL(br.Launcher.Get(flags.UserDataDir))
	require.NoError(b, err)
	viaConnect, err := tabguard.Connect(ctx, wsURL)
	require.NoError(b, err)
	b.Cleanup(func() { _ = viaConnect.Close() })

	rodPage := benchPage(b, br, serve(b).URL)
	connectPage, err := viaConnect.PageFromTarget(rodPage.TargetID)
	require.NoError(b, err)
	evals := map[bool]func() time.Duration{}
	for _, c := range []struct {
		connect bool
		page    interface {
			Eval(string, ...any) (*proto.RuntimeRemoteObject, error)
		}
	}{{false, rodPage.Context(ctx)}, {true, connectPage.Context(ctx)}} {
		evals[c.connect] = func() time.Duration {
			return benchutil.Time(func() {
				if res, err := c.page.Eval(`() => 1`); err != nil || res.Value.Int() != 1 {
					b.Fatalf("page.Eval() = %v, %v; want 1", res, err)
				}
			})
		}
	}
	for range 50 { // warm both
		evals[false]()
		evals[true]()
	}
	var rodS, connectS benchutil.Samples
	i := 0
	for b.Loop() {
		first := i%2 == 0
		a, c := evals[first](), evals[!first]()
		if first {
			a, c = c, a
		}
		rodS, connectS = append(rodS, a), append(connectS, c)
		i++
	}
	report(b, map[string]float64{
		"rod-p50-ms":     benchutil.Ms(rodS.Quantile(0.5)),
		"connect-p50-ms": benchutil.Ms(connectS.Quantile(0.5)),
		"p50-ratio":      benchutil.Ratio(connectS.Quantile(0.5), rodS.Quantile(0.5)),
		"calls-each":     float64(len(rodS)),
	})
}
