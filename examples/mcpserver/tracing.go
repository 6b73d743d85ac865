package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The attributes of a tools/call span, after OpenTelemetry's semantic
// conventions for MCP.
const (
	attrMethod          = attribute.Key("mcp.method.name")
	attrTool            = attribute.Key("gen_ai.tool.name")
	attrOperation       = attribute.Key("gen_ai.operation.name")
	attrProtocolVersion = attribute.Key("mcp.protocol.version")
	attrSession         = attribute.Key("mcp.session.id")
	attrErrorType       = attribute.Key("error.type")
	attrRPCStatus       = attribute.Key("rpc.response.status_code")
)

// methodCallTool is the MCP method a tool call comes in as.
const methodCallTool = "tools/call"

// traceTools returns middleware that makes each tools/call a span of kind
// server, named "tools/call <tool>" after OpenTelemetry's MCP conventions,
// and runs the tool in its context: the spans of the guarded calls the
// tool makes (tabguard.Eval, ...) are its children. A tool that answers
// with an error gets error.type "tool_error"; a call the server refuses
// (an unknown tool, bad arguments) gets the JSON-RPC error code. A
// traceparent in the request's _meta, where a traced client puts it, is
// the span's parent. A call of a tool the server does not have is named
// "tools/call" alone: that name is the client's choice, and a span's name
// must come from a small set.
func traceTools(tp trace.TracerProvider, tools map[string]bool) mcp.Middleware {
	tracer := tp.Tracer("github.com/tabguard/tabguard/examples/mcpserver")
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, ok := req.(*mcp.CallToolRequest)
			if method != methodCallTool || !ok || r.Params == nil {
				return next(ctx, method, req)
			}
			name := methodCallTool
			if tools[r.Params.Name] {
				name += " " + r.Params.Name
			}
			ctx = propagation.TraceContext{}.Extract(ctx, metaCarrier(r.Params.Meta))
			ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
				attrMethod.String(methodCallTool),
				attrTool.String(r.Params.Name),
				attrOperation.String("execute_tool"),
			))
			defer span.End()
			if span.IsRecording() {
				if v := r.ProtocolVersion(); v != "" {
					span.SetAttributes(attrProtocolVersion.String(v))
				}
				if id := r.Session.ID(); id != "" {
					span.SetAttributes(attrSession.String(id))
				}
			}
			res, err := next(ctx, method, req)
			endToolSpan(span, res, err)
			return res, err
		}
	}
}

// endToolSpan records how a tool call ended. A tool error's text stays off
// the span: it can quote the page's URL, which may carry secrets, and the
// guarded call's child span names the reason.
func endToolSpan(span trace.Span, res mcp.Result, err error) {
	var wire *jsonrpc.Error
	switch {
	case errors.As(err, &wire):
		code := strconv.FormatInt(wire.Code, 10)
		span.SetAttributes(attrErrorType.String(code), attrRPCStatus.String(code))
		span.SetStatus(codes.Error, err.Error()) // the message the client gets
	case err != nil:
		span.SetAttributes(attrErrorType.String("_OTHER"))
		span.SetStatus(codes.Error, "")
	default:
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			span.SetAttributes(attrErrorType.String("tool_error"))
			span.SetStatus(codes.Error, "")
		}
	}
}

// metaCarrier reads and writes trace context in a request's _meta, where
// the MCP conventions put traceparent, tracestate and baggage, unprefixed.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
