package otelguard_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/otelguard"
	"github.com/tabguard/tabguard/tabtrace"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// sdk is OpenTelemetry's SDK with an in-memory span recorder and a
// manual metric reader, and the Trace otelguard builds on it.
type sdk struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	trace  *tabtrace.Trace
}

func newSDK(t testing.TB) *sdk {
	t.Helper()
	s := &sdk{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	s.tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(s.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.reader))
	t.Cleanup(func() {
		_ = s.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	s.trace = otelguard.New(otelguard.WithTracerProvider(s.tp), otelguard.WithMeterProvider(mp))
	return s
}

// span returns the last ended span named name.
func (s *sdk) span(t testing.TB, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	ended := s.spans.Ended()
	for i := len(ended) - 1; i >= 0; i-- {
		if ended[i].Name() == name {
			return ended[i]
		}
	}
	t.Fatalf("no span %q among %d", name, len(ended))
	return nil
}

// collect reads every metric now.
func (s *sdk) collect(t testing.TB) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, s.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// count is the value of the counter name's stream with exactly attrs,
// or of the histogram's count; 0 when there is none.
func (s *sdk) count(t testing.TB, name string, attrs ...attribute.KeyValue) int64 {
	t.Helper()
	want := attribute.NewSet(attrs...)
	switch d := s.collect(t)[name].Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			if p.Attributes.Equals(&want) {
				return p.Value
			}
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			if p.Attributes.Equals(&want) {
				return int64(p.Count)
			}
		}
	}
	return 0
}

// streams counts each metric's streams: its distinct attribute sets.
func (s *sdk) streams(t testing.TB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for name, m := range s.collect(t) {
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			out[name] = len(d.DataPoints)
		case metricdata.Histogram[float64]:
			out[name] = len(d.DataPoints)
		}
	}
	return out
}

// attrs are a span's attributes by key; every one of them is a string.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.AsString()
	}
	return m
}
