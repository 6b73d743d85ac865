package otelguard

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// instruments makes g's metrics with meter. One the meter refuses is
// reported to otel.Handle and replaced by a no-op.
func (g *guard) instruments(meter metric.Meter) {
	var err error
	g.duration, err = meter.Float64Histogram(MetricCallDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of guarded calls on browser tabs."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		otel.Handle(err)
		g.duration = noop.Float64Histogram{}
	}
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		if err != nil {
			otel.Handle(err)
			return noop.Int64Counter{}
		}
		return c
	}
	g.refusals = counter(MetricRefusals, "{call}", "Guarded calls the tab refused, up front or in flight, by reason.")
	g.timeouts = counter(MetricTimeouts, "{call}", "Guarded calls that ran out of time, by what the tab was doing.")
	g.crashes = counter(MetricCrashes, "{crash}", "Tab renderer crashes, by Chrome's status.")
	g.changes = counter(MetricChanges, "{change}", "Changes of the browser's tabs, by kind.")
	g.terminations = counter(MetricTerminations, "{script}", "Scripts stopped after they held a tab past a call's deadline.")
	g.misses = counter(MetricHeartbeatMisses, "{heartbeat}", "Heartbeats the browser did not answer in time.")
	g.watched, err = meter.Int64UpDownCounter(MetricTabsWatched, metric.WithUnit("{tab}"),
		metric.WithDescription("Tabs a watcher follows."))
	if err != nil {
		otel.Handle(err)
		g.watched = noop.Int64UpDownCounter{}
	}
}
