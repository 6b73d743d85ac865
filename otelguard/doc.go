// Package otelguard reports what a tabguard watcher does to OpenTelemetry:
// a span for each guarded call, and metrics of calls, refusals, timeouts,
// crashes and tabs. It builds a [tabtrace.Trace] for a watcher's
// Options.Trace, on rod (tabguard.Options) and on chromedp
// (chromedpguard.Options) alike:
//
//	w, err := tabguard.Watch(page, &tabguard.Options{Trace: otelguard.New()})
//
// It uses the OpenTelemetry API alone: with no SDK installed, the global
// providers are no-ops and it costs next to nothing. Span and metric names,
// units and attributes are listed in docs/observability.md.
// No attribute holds a full URL, which can carry secrets: spans name the
// page's origin only, and metrics have no URL at all, so no metric stream
// grows with the pages visited.
package otelguard
