package otelguard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/otelguard"
	"github.com/tabguard/tabguard/tabtrace"
	"go.opentelemetry.io/otel/codes"
)

// pages serves a small page at every path, on 127.0.0.1.
func pages(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>t</title><p>" + r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFaultRows holds the spans and points of the fault matrix's rows on
// a real browser, reported through the real SDK: a healthy eval under the
// caller's span, a crash mid-eval, the refusal that follows, the recovery,
// a dialog, and a timeout with its cause.
func TestFaultRows(t *testing.T) {
	s := newSDK(t)
	srv := pages(t)
	ctx := testbrowser.Context(t, 60*time.Second)
	bw, err := tabguard.WatchBrowser(testbrowser.Shared(t).Browser, &tabguard.Options{
		EvalTimeout: 1500 * time.Millisecond, TerminateOnTimeout: true, Trace: s.trace,
	})
	require.NoError(t, err)
	defer bw.Close()
	w, err := bw.Open(ctx, srv.URL+"/page?token=secret")
	require.NoError(t, err)
	assert.EqualValues(t, 1, s.count(t, otelguard.MetricTabsWatched))

	eval := func(ctx context.Context, js string) error {
		_, err := w.Eval(ctx, js)
		return err
	}
	call := otelguard.AttrCall.String("Eval")

	t.Run("healthy eval is a child of the caller's span", func(t *testing.T) {
		pctx, parent := s.tp.Tracer("caller").Start(ctx, "job")
		require.NoError(t, eval(pctx, `() => 1 + 1`))
		parent.End()
		span := s.span(t, "tabguard.Eval")
		assert.Equal(t, parent.SpanContext().SpanID(), span.Parent().SpanID())
		assert.Equal(t, parent.SpanContext().TraceID(), span.SpanContext().TraceID())
		assert.Equal(t, codes.Unset, span.Status().Code)
		a := attrs(span)
		assert.Equal(t, "Eval", a[otelguard.AttrCall])
		assert.Equal(t, srv.URL, a[otelguard.AttrOrigin], "the origin alone, never the path or the token")
		assert.Equal(t, string(w.TargetID()), a[otelguard.AttrTargetID])
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricCallDuration, call, otelguard.AttrOutcome.String("ok")))
	})

	t.Run("crash mid-eval", func(t *testing.T) {
		time.AfterFunc(100*time.Millisecond, func() {
			cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			page, err := testbrowser.Shared(t).PageFromTarget(w.TargetID())
			if err == nil {
				_ = proto.PageCrash{}.Call(page.Context(cctx))
			}
		})
		require.ErrorIs(t, eval(ctx, `() => new Promise(() => {})`), tabguard.ErrTabCrashed)
		span := s.span(t, "tabguard.Eval")
		assert.Equal(t, codes.Error, span.Status().Code)
		assert.Equal(t, "tab renderer crashed", span.Status().Description)
		a := attrs(span)
		assert.Equal(t, "refused", a[otelguard.AttrOutcome])
		assert.Equal(t, "ErrTabCrashed", a[otelguard.AttrErrorType])
		assert.Equal(t, "in_flight", a[otelguard.AttrRefusal])
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricRefusals, call,
			otelguard.AttrErrorType.String("ErrTabCrashed"), otelguard.AttrRefusal.String("in_flight")))
		require.Eventually(t, func() bool {
			return s.count(t, otelguard.MetricCrashes, otelguard.AttrCrashStatus.String("crashed"))+
				s.count(t, otelguard.MetricCrashes, otelguard.AttrCrashStatus.String("killed")) == 1
		}, 5*time.Second, 10*time.Millisecond, "Target.targetCrashed counted once, by its status")
	})

	t.Run("refused on the crashed tab", func(t *testing.T) {
		require.ErrorIs(t, eval(ctx, `() => 1`), tabguard.ErrTabCrashed)
		a := attrs(s.span(t, "tabguard.Eval"))
		assert.Equal(t, "after_barrier", a[otelguard.AttrRefusal], "a crash may be stale: the barrier confirms it")
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricRefusals, call,
			otelguard.AttrErrorType.String("ErrTabCrashed"), otelguard.AttrRefusal.String("after_barrier")))
	})

	t.Run("recovery", func(t *testing.T) {
		require.NoError(t, w.Reload(ctx))
		require.NoError(t, eval(ctx, `() => 2`))
		assert.Equal(t, codes.Unset, s.span(t, "tabguard.Reload").Status().Code)
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricCallDuration,
			otelguard.AttrCall.String("Reload"), otelguard.AttrOutcome.String("ok")))
		assert.EqualValues(t, 2, s.count(t, otelguard.MetricCallDuration, call, otelguard.AttrOutcome.String("ok")))
	})

	t.Run("dialog", func(t *testing.T) {
		require.ErrorIs(t, eval(ctx, `() => alert("hi")`), tabguard.ErrDialogOpen)
		a := attrs(s.span(t, "tabguard.Eval"))
		assert.Equal(t, "ErrDialogOpen", a[otelguard.AttrErrorType])
		assert.Equal(t, "in_flight", a[otelguard.AttrRefusal])
		require.ErrorIs(t, eval(ctx, `() => 1`), tabguard.ErrDialogOpen, "refused at once, with no wait")
		assert.Equal(t, "ErrDialogOpen", attrs(s.span(t, "tabguard.Eval"))[otelguard.AttrErrorType])
		assert.EqualValues(t, 2, s.count(t, otelguard.MetricCallDuration, call,
			otelguard.AttrOutcome.String("refused"), otelguard.AttrErrorType.String("ErrDialogOpen")))
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricChanges, otelguard.AttrChange.String("dialog_opened")))
		require.NoError(t, w.HandleDialog(ctx, true, ""))
		assert.Equal(t, codes.Unset, s.span(t, "tabguard.HandleDialog").Status().Code)
	})

	t.Run("timeout with its cause", func(t *testing.T) {
		var te *tabguard.TimeoutError
		require.ErrorAs(t, eval(ctx, `() => { for (;;) {} }`), &te)
		require.Equal(t, tabguard.TimeoutBusyScript, te.Cause)
		span := s.span(t, "tabguard.Eval")
		a := attrs(span)
		assert.Equal(t, "timed_out", a[otelguard.AttrOutcome])
		assert.Equal(t, "ErrEvalTimeout", a[otelguard.AttrErrorType])
		assert.Equal(t, "TimeoutBusyScript", a[otelguard.AttrTimeoutCause])
		assert.Equal(t, "timed out: TimeoutBusyScript", span.Status().Description)
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricTimeouts, call, otelguard.AttrTimeoutCause.String("TimeoutBusyScript")))
		assert.EqualValues(t, 1, s.count(t, otelguard.MetricTerminations, otelguard.AttrOutcome.String("ok")))
		require.NoError(t, eval(ctx, `() => 3`), "the stopped script leaves the tab usable")
	})

	require.NoError(t, w.CloseTab(ctx))
	assert.EqualValues(t, 0, s.count(t, otelguard.MetricTabsWatched))
	assert.EqualValues(t, 1, s.count(t, otelguard.MetricCallDuration,
		otelguard.AttrCall.String(string(tabtrace.OpCloseTab)), otelguard.AttrOutcome.String("ok")))
}
