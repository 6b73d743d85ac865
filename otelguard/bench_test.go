package otelguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/benchutil"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/otelguard"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkOtelEval compares, on one healthy tab, rod's page.Eval, the
// guarded Watcher.Eval with no Trace, and Watcher.Eval traced by otelguard
// on OpenTelemetry's real SDK: every span sampled and exported at its end
// to an in-memory exporter, every metric aggregated for a manual reader.
// Each iteration makes one call of each, in rotating order, under a
// caller's span, as a traced program makes them; then the allocations of
// 1,000 calls of each are counted. It asserts nothing about timing.
func BenchmarkOtelEval(b *testing.B) {
	const js = `() => 1`
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSyncer(exporter))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	br, err := testbrowser.Launch()
	require.NoError(b, err)
	b.Cleanup(br.Close)
	srv := pages(b)
	ctx := testbrowser.Context(b, 10*time.Minute)
	open := func(trace *otelguard.Option) (*rod.Page, *tabguard.Watcher) {
		page := testbrowser.NewPage(b, br)
		p := page.Context(testbrowser.Context(b, time.Minute))
		require.NoError(b, p.Navigate(srv.URL))
		require.NoError(b, p.WaitLoad())
		opts := &tabguard.Options{}
		if trace != nil {
			opts.Trace = otelguard.New(*trace, otelguard.WithMeterProvider(mp))
		}
		w, err := tabguard.Watch(page, opts)
		require.NoError(b, err)
		b.Cleanup(func() { _ = w.Close() })
		return page, w
	}
	tracing := otelguard.WithTracerProvider(tp)
	rawPage, _ := open(nil)
	_, plain := open(nil)
	_, traced := open(&tracing)
	raw := rawPage.Context(ctx)
	job, span := tp.Tracer("caller").Start(ctx, "job")
	defer span.End()

	calls := []func() time.Duration{
		func() time.Duration {
			return benchutil.Time(func() {
				if res, err := raw.Eval(js); err != nil || res.Value.Int() != 1 {
					b.Fatalf("page.Eval() = %v, %v; want 1", res, err)
				}
			})
		},
		func() time.Duration {
			return benchutil.Time(func() {
				if res, err := plain.Eval(job, js); err != nil || res.Value.Int() != 1 {
					b.Fatalf("Watcher.Eval() = %v, %v; want 1", res, err)
				}
			})
		},
		func() time.Duration {
			return benchutil.Time(func() {
				if res, err := traced.Eval(job, js); err != nil || res.Value.Int() != 1 {
					b.Fatalf("traced Watcher.Eval() = %v, %v; want 1", res, err)
				}
			})
		},
	}
	for range 50 { // warm every path
		for _, c := range calls {
			c()
		}
	}
	samples := make([]benchutil.Samples, len(calls))
	i := 0
	for b.Loop() {
		for k := range calls {
			j := (i + k) % len(calls)
			samples[j] = append(samples[j], calls[j]())
		}
		i++
		if i%1000 == 0 {
			exporter.Reset() // the exporter keeps what it got: keep the heap flat
		}
	}
	allocs := make([]float64, len(calls))
	for j, c := range calls {
		allocs[j] = benchutil.Allocs(1000, func() { c() })
	}
	exporter.Reset()
	rawS, plainS, tracedS := samples[0], samples[1], samples[2]
	for unit, v := range map[string]float64{
		"raw-p50-ms":        benchutil.Ms(rawS.Quantile(0.5)),
		"plain-p50-ms":      benchutil.Ms(plainS.Quantile(0.5)),
		"otel-p50-ms":       benchutil.Ms(tracedS.Quantile(0.5)),
		"plain-p50-ratio":   benchutil.Ratio(plainS.Quantile(0.5), rawS.Quantile(0.5)),
		"otel-p50-ratio":    benchutil.Ratio(tracedS.Quantile(0.5), rawS.Quantile(0.5)),
		"otel-p99-ratio":    benchutil.Ratio(tracedS.Quantile(0.99), rawS.Quantile(0.99)),
		"raw-allocs":        allocs[0],
		"plain-allocs":      allocs[1],
		"otel-allocs":       allocs[2],
		"otel-allocs-above": allocs[2] - allocs[1],
		"calls-each":        float64(len(rawS)),
	} {
		b.ReportMetric(v, unit)
	}
}
