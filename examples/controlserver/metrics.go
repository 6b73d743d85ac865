package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tabguard/tabguard/otelguard"
	"github.com/tabguard/tabguard/tabtrace"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/trace/noop"
)

// metrics is what GET /metrics serves: an OpenTelemetry meter provider
// whose one reader is the Prometheus exporter, registered with a registry
// of the server's own. Nothing else registers there, so /metrics shows
// the watchers' metrics alone, and two servers in one process (as in the
// tests) do not collide in the global default registry.
type metrics struct {
	mp  *sdkmetric.MeterProvider
	reg *prometheus.Registry
}

func newMetrics() (*metrics, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("set up the Prometheus exporter: %w", err)
	}
	return &metrics{mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp)), reg: reg}, nil
}

// trace reports the watchers' calls and tabs to the meter provider. The
// server exports no spans, so they go to a no-op tracer rather than to
// whatever otel's global provider is.
func (m *metrics) trace() *tabtrace.Trace {
	return otelguard.New(otelguard.WithMeterProvider(m.mp), otelguard.WithTracerProvider(noop.NewTracerProvider()))
}

// handler serves the metrics in Prometheus's text format; the exporter
// turns otelguard's names into Prometheus ones, such as
// tabguard_call_duration_seconds and tabguard_call_refusals_total.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// close stops the meter provider; /metrics serves nothing more after it.
func (m *metrics) close() error {
	return m.mp.Shutdown(context.Background())
}
