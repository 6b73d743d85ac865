package otelguard

import (
	"context"

	"github.com/tabguard/tabguard/tabtrace"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// New returns a Trace that reports each guarded call as a span, a child
// of the span in the call's context, and the calls, refusals, timeouts,
// crashes, tabs, stopped scripts and missed heartbeats as metrics. Set it
// as a watcher's Options.Trace; one Trace may serve any number of
// watchers. An instrument the meter refuses is reported to otel.Handle and
// left out.
func New(opts ...Option) *tabtrace.Trace {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	g := &guard{tracer: c.tp.Tracer(ScopeName), calls: map[tabtrace.Op]*call{}}
	g.instruments(c.mp.Meter(ScopeName))
	for _, op := range ops {
		g.calls[op] = newCall(string(op))
	}
	g.other = newCall(otherError)
	return &tabtrace.Trace{
		CallStart:        g.callStart,
		CallDone:         g.callDone,
		TabChanged:       g.tabChanged,
		ScriptTerminated: g.scriptTerminated,
		HeartbeatMissed:  g.heartbeatMissed,
	}
}

// ops are the guarded calls, whose span names and attributes New makes once.
var ops = []tabtrace.Op{
	tabtrace.OpEval, tabtrace.OpEvalFrame, tabtrace.OpDOM, tabtrace.OpReadDOM, tabtrace.OpDo, tabtrace.OpNavigate,
	tabtrace.OpReload, tabtrace.OpHandleDialog, tabtrace.OpWait, tabtrace.OpCloseTab,
	tabtrace.OpScreenshot, tabtrace.OpPDF, tabtrace.OpRecover, tabtrace.OpCookies, tabtrace.OpDoBrowserSide, tabtrace.OpGuard,
	tabtrace.OpSnapshot, tabtrace.OpAct,
}

// guard reports one Trace's news.
type guard struct {
	tracer trace.Tracer
	calls  map[tabtrace.Op]*call // read only once New returns
	other  *call                 // a call of no known op, which the streams must not grow with

	duration                             metric.Float64Histogram
	refusals, timeouts, crashes, changes metric.Int64Counter
	terminations, misses                 metric.Int64Counter
	watched                              metric.Int64UpDownCounter
}

// call is what every span and point of one guarded call shares, made once.
type call struct {
	name  string // the span's
	attr  attribute.KeyValue
	start []trace.SpanStartOption
	ok    metric.RecordOption // the duration's attributes of a call that answered
}

func newCall(op string) *call {
	attr := AttrCall.String(op)
	return &call{
		name:  "tabguard." + op,
		attr:  attr,
		start: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attr)},
		ok:    metric.WithAttributeSet(attribute.NewSet(attr, AttrOutcome.String(tabtrace.OutcomeOK.String()))),
	}
}

// call returns the shared parts of op's calls.
func (g *guard) call(op tabtrace.Op) *call {
	if c := g.calls[op]; c != nil {
		return c
	}
	return g.other
}

func (g *guard) callStart(ctx context.Context, c tabtrace.Call) context.Context {
	cl := g.call(c.Op)
	ctx, span := g.tracer.Start(ctx, cl.name, cl.start...)
	if span.IsRecording() {
		span.SetAttributes(AttrTargetID.String(c.TargetID), AttrOrigin.String(tabtrace.Origin(c.URL)))
	}
	return ctx
}

func (g *guard) callDone(ctx context.Context, c tabtrace.Call, d tabtrace.Done) {
	cl := g.call(c.Op)
	span := trace.SpanFromContext(ctx)
	if d.Outcome == tabtrace.OutcomeOK {
		g.duration.Record(ctx, d.Duration.Seconds(), cl.ok)
		span.End()
		return
	}
	errType := AttrErrorType.String(errorType(d.Reason))
	g.duration.Record(ctx, d.Duration.Seconds(), metric.WithAttributes(cl.attr, AttrOutcome.String(d.Outcome.String()), errType))
	attrs := []attribute.KeyValue{AttrOutcome.String(d.Outcome.String()), errType}
	switch d.Outcome {
	case tabtrace.OutcomeRefused:
		refusal := AttrRefusal.String(d.Refused.String())
		g.refusals.Add(ctx, 1, metric.WithAttributes(cl.attr, errType, refusal))
		attrs = append(attrs, refusal)
	case tabtrace.OutcomeTimedOut:
		cause := AttrTimeoutCause.String(d.Cause.String())
		g.timeouts.Add(ctx, 1, metric.WithAttributes(cl.attr, cause))
		attrs = append(attrs, cause)
	}
	if span.IsRecording() {
		span.SetAttributes(attrs...)
		span.SetStatus(codes.Error, describe(d))
	}
	span.End()
}

// describe is a span's status for a call that did not answer: what its
// sentinel says, never the error's text, which can hold the page's URL.
func describe(d tabtrace.Done) string {
	switch {
	case d.Outcome == tabtrace.OutcomeTimedOut:
		return "timed out: " + d.Cause.String()
	case d.Reason != nil:
		return d.Reason.Error()
	}
	return d.Outcome.String()
}

func (g *guard) tabChanged(c tabtrace.Change) {
	ctx := context.Background()
	switch c.Kind {
	case tabtrace.TabWatched:
		g.watched.Add(ctx, 1)
	case tabtrace.TabUnwatched:
		g.watched.Add(ctx, -1)
	case tabtrace.TabCrashed:
		g.crashes.Add(ctx, 1, metric.WithAttributes(AttrCrashStatus.String(crashStatus(c.Detail))))
	}
	g.changes.Add(ctx, 1, metric.WithAttributes(AttrChange.String(c.Kind.String())))
}

func (g *guard) scriptTerminated(s tabtrace.Termination) {
	outcome := tabtrace.OutcomeOK
	if s.Err != nil {
		outcome = tabtrace.OutcomeFailed
	}
	g.terminations.Add(context.Background(), 1, metric.WithAttributes(AttrOutcome.String(outcome.String())))
}

func (g *guard) heartbeatMissed(tabtrace.HeartbeatMiss) {
	g.misses.Add(context.Background(), 1)
}
