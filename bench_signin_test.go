//go:build go1.24

package tabguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// BenchmarkSignInLoad prices Options.Credentials: with it set, Chrome
// holds each document request of the tab until the engine continues it
// (Fetch). Two tabs of one browser navigate to the same small page, one
// watched with Credentials set and one without; each iteration makes one
// Navigate of each, in alternating order, timed to its return (the
// commit). Then it times Navigate to a page that asks for credentials,
// given by the callback, against the same Navigate to the page itself,
// whose credentials the browser then sends unasked.
func BenchmarkSignInLoad(b *testing.B) {
	br := benchBrowser(b)
	srv := serve(b)
	give := func(context.Context, tabguard.SignIn) (tabguard.Credentials, error) {
		return tabguard.Credentials{Username: faultrows.SignInUser, Password: faultrows.SignInPassword}, nil
	}
	held := watch(b, benchPage(b, br, srv.URL), &tabguard.Options{Credentials: give})
	plain := watch(b, benchPage(b, br, srv.URL), nil)
	ctx := testbrowser.Context(b, 10*time.Minute)
	nav := func(w *tabguard.Watcher, url string) time.Duration {
		return benchutil.Time(func() {
			if err := w.Navigate(ctx, url); err != nil {
				b.Fatalf("Navigate(%s) = %v", url, err)
			}
		})
	}
	for range 10 {
		nav(held, srv.URL)
		nav(plain, srv.URL)
	}
	var heldS, plainS benchutil.Samples
	i := 0
	for b.Loop() {
		var h, p time.Duration
		if i%2 == 0 {
			h, p = nav(held, srv.URL), nav(plain, srv.URL)
		} else {
			p, h = nav(plain, srv.URL), nav(held, srv.URL)
		}
		heldS, plainS = append(heldS, h), append(plainS, p)
		i++
	}
	// A sign-in answered by the callback: a browser of its own each time
	// would be needed to ask again, so the first one is timed, in a fresh
	// tab, against a load of the same page once the browser has them.
	signIn := srv.URL + faultrows.SignInPath
	first := nav(watch(b, benchPage(b, br, srv.URL), &tabguard.Options{Credentials: give}), signIn)
	again := nav(plain, signIn)
	report(b, map[string]float64{
		"loads-each":       float64(len(heldS)),
		"plain-p50-ms":     benchutil.Ms(plainS.Quantile(0.5)),
		"held-p50-ms":      benchutil.Ms(heldS.Quantile(0.5)),
		"p50-ratio":        benchutil.Ratio(heldS.Quantile(0.5), plainS.Quantile(0.5)),
		"p95-ratio":        benchutil.Ratio(heldS.Quantile(0.95), plainS.Quantile(0.95)),
		"signin-ms":        benchutil.Ms(first),
		"signin-cached-ms": benchutil.Ms(again),
	})
}
