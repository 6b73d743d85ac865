package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// export is one OTLP/HTTP request a collector got.
type export struct {
	path, contentType string
	body              []byte // protobuf, where a span's name is a plain string
}

// collector is an OTLP/HTTP collector on 127.0.0.1 that keeps what it is
// sent and answers every export with success.
type collector struct {
	*httptest.Server
	mu      sync.Mutex
	exports []export
}

func newCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.exports = append(c.exports, export{path: r.URL.Path, contentType: r.Header.Get("Content-Type"), body: body})
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK) // an empty body is an empty ExportTraceServiceResponse
	}))
	t.Cleanup(c.Close)
	return c
}

// got returns the exports so far.
func (c *collector) got() []export {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]export(nil), c.exports...)
}

// requireSpans checks that exports are protobuf exports to path that
// hold a span of each name.
func requireSpans(t *testing.T, exports []export, path string, names ...string) {
	t.Helper()
	require.NotEmpty(t, exports, "the collector got no export")
	var all []byte
	for _, e := range exports {
		assert.Equal(t, path, e.path)
		assert.Equal(t, "application/x-protobuf", e.contentType)
		all = append(all, e.body...)
	}
	for _, name := range names {
		assert.True(t, bytes.Contains(all, []byte(name)), "no span named %q was sent", name)
	}
}

// The server sends spans over OTLP/HTTP when either endpoint variable is
// set, and traces nothing when neither is.
func TestOTLPTracing(t *testing.T) {
	col := newCollector(t)
	tests := []struct {
		name, endpoint, tracesEndpoint string
		path                           string // where the spans go; empty: no tracing
	}{
		{"no endpoint", "", "", ""},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", col.URL, "", "/v1/traces"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "", col.URL + "/spans", "/spans"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tt.endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tt.tracesEndpoint)
			before := len(col.got())
			ctx := testContext(t, 20*time.Second)
			tp, shutdown, err := otlpTracing(ctx)
			require.NoError(t, err)
			if tt.path == "" {
				assert.Nil(t, tp)
				require.NoError(t, shutdown(ctx))
				return
			}
			require.NotNil(t, tp)
			_, span := tp.Tracer("test").Start(ctx, "tools/call list_tabs")
			span.End()
			require.NoError(t, shutdown(ctx), "shutdown sends the spans left")
			requireSpans(t, col.got()[before:], tt.path, "tools/call list_tabs")
		})
	}
}
