package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

const (
	healthyEvals = 200 // each of tabguard and rod
	healthyWarm  = 10  // unmeasured, each, first
	// healthyBound is the ratio of medians above which the row fails: a
	// guard against a regression, far above a run's noise.
	healthyBound = 1.5
)

// healthyRow times Watcher.Eval beside rod's own page.Eval on the same tab
// over the same Connect'ed browser, alternating which goes first.
func healthyRow(ctx context.Context, p *pool, pageURL string, rep *report) row {
	r := row{name: fmt.Sprintf("healthy evals: `Watcher.Eval(ctx, \"() => 1\")` beside rod's `page.Eval` on the same tab, %d each, alternating", healthyEvals)}
	s, err := openSession(ctx, p, pageURL, nil)
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	if rep.chromium, err = s.version(ctx); err != nil {
		return r.miss("Browser.getVersion: %v", err)
	}
	tabguardEval := func(ctx context.Context) (*proto.RuntimeRemoteObject, error) { return s.w.Eval(ctx, "() => 1") }
	rodEval := func(ctx context.Context) (*proto.RuntimeRemoteObject, error) {
		return s.page.Context(ctx).Eval("() => 1")
	}
	var tg, rd []time.Duration
	for i := range healthyEvals + healthyWarm {
		first, second, a, b := tabguardEval, rodEval, &tg, &rd
		if i%2 == 1 {
			first, second, a, b = rodEval, tabguardEval, &rd, &tg
		}
		for _, c := range []struct {
			eval func(context.Context) (*proto.RuntimeRemoteObject, error)
			into *[]time.Duration
		}{{first, a}, {second, b}} {
			d, err := timeOne(ctx, c.eval)
			if err != nil {
				return r.miss("eval %d: %v", i, err)
			}
			if i >= healthyWarm {
				*c.into = append(*c.into, d)
			}
		}
	}
	mt, mr := median(tg), median(rd)
	ratio := float64(mt) / float64(mr)
	r.returned = fmt.Sprintf("1, all %d (rod's `page.Eval`: 1, all %d)", len(tg), len(rd))
	r.took = fmt.Sprintf("median %s (rod's %s): ratio %.2f", dur(mt), dur(mr), ratio)
	if ratio > healthyBound {
		return r.miss("tabguard's median is %.2f times rod's, above %.1f", ratio, healthyBound)
	}
	return r
}

// timeOne runs one eval under a deadline and checks that it answered 1.
func timeOne(ctx context.Context, eval func(context.Context) (*proto.RuntimeRemoteObject, error)) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	res, err := eval(ctx)
	d := time.Since(start)
	switch {
	case err != nil:
		return 0, err
	case res.Value.Int() != 1:
		return 0, fmt.Errorf("answered %v, want 1", res.Value)
	}
	return d, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
