package main

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorder returns a tracer provider of the real SDK that keeps every
// span it ends.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	return tp, rec
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

// named returns the spans of spans named name.
func named(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// Each tool call is a span after OpenTelemetry's MCP conventions, and the
// guarded call the tool makes is its child; a tool that fails, or a call
// the server refuses, says so in error.type.
func TestToolCallSpans(t *testing.T) {
	tp, rec := recorder(t)
	cs := connectTraced(t, tp)
	tab := openTab(t, cs, pages(t).URL)
	srv := framePages(t, deadURL(t))
	framed := openTab(t, cs, srv.URL+"/frames")
	frame := frameAt(t, frames(t, cs, framed), srv.URL+"/inner?n=a").Frame

	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		span     string // the tools/call span's name
		errType  string // its error.type; empty when the call answered
		children []string
	}{
		{"an eval that answers", "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"},
			"tools/call eval_in_tab", "", []string{"tabguard.Eval"}},
		{"an eval that throws", "eval_in_tab", map[string]any{"tab": tab, "js": "() => { throw new Error('no') }"},
			"tools/call eval_in_tab", "tool_error", []string{"tabguard.Eval"}},
		{"a DOM read", "get_tab_dom", map[string]any{"tab": tab},
			"tools/call get_tab_dom", "", []string{"tabguard.ReadDOM"}},
		{"an eval in a frame", "eval_in_tab", map[string]any{"tab": framed, "frame": frame, "js": "() => document.title"},
			"tools/call eval_in_tab", "", []string{"tabguard.EvalFrame"}},
		{"a frame's DOM read", "get_tab_dom", map[string]any{"tab": framed, "frame": frame},
			"tools/call get_tab_dom", "", []string{"tabguard.ReadDOM"}},
		{"a frame the tab does not have", "eval_in_tab", map[string]any{"tab": framed, "frame": "NOSUCH", "js": "() => 1"},
			"tools/call eval_in_tab", "tool_error", []string{"tabguard.EvalFrame"}},
		{"an unknown tab", "eval_in_tab", map[string]any{"tab": "no-such-tab", "js": "() => 1"},
			"tools/call eval_in_tab", "tool_error", nil},
		{"an unknown tool", "no_such_tool", nil,
			"tools/call", "-32602", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rec.Ended())
			res, err := cs.CallTool(testContext(t, 20*time.Second), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if tt.errType == "-32602" {
				require.Error(t, err, "an unknown tool is a protocol error")
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.errType != "", res.IsError, "the tool's result is an error")
			}
			spans := rec.Ended()[before:]
			calls := named(spans, tt.span)
			require.Len(t, calls, 1, "one %q span", tt.span)
			call := calls[0]
			assert.Equal(t, trace.SpanKindServer, call.SpanKind())
			a := attrs(call)
			assert.Equal(t, "tools/call", a["mcp.method.name"])
			assert.Equal(t, tt.tool, a["gen_ai.tool.name"])
			assert.Equal(t, "execute_tool", a["gen_ai.operation.name"])
			assert.Equal(t, tt.errType, a["error.type"])
			if tt.errType == "" {
				assert.Equal(t, codes.Unset, call.Status().Code)
			} else {
				assert.Equal(t, codes.Error, call.Status().Code)
			}
			var kids []string
			for _, s := range spans {
				if s.Parent().SpanID() == call.SpanContext().SpanID() {
					assert.Equal(t, call.SpanContext().TraceID(), s.SpanContext().TraceID(), "%s is in the tool call's trace", s.Name())
					kids = append(kids, s.Name())
				}
			}
			assert.Equal(t, tt.children, kids, "the tool call's children")
		})
	}
}

// A traceparent in the request's _meta, as a traced client sends it, is
// the parent of the tool call's span.
func TestToolCallSpanParentFromMeta(t *testing.T) {
	tp, rec := recorder(t)
	cs := connectTraced(t, tp)
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	params := &mcp.CallToolParams{Name: "list_tabs", Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + spanID + "-01"}}
	_, err := cs.CallTool(testContext(t, 20*time.Second), params)
	require.NoError(t, err)
	calls := named(rec.Ended(), "tools/call list_tabs")
	require.Len(t, calls, 1)
	assert.Equal(t, traceID, calls[0].SpanContext().TraceID().String())
	assert.Equal(t, spanID, calls[0].Parent().SpanID().String())
	assert.True(t, calls[0].Parent().IsRemote())
}
