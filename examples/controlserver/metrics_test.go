package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// scrape reads GET /metrics through c, with c's token, as Prometheus would,
// and parses it.
func scrape(t *testing.T, c *Client) map[string]*dto.MetricFamily {
	t.Helper()
	status, body := send(t, c, rawCall{method: http.MethodGet, path: "/metrics", header: bearer(c.Token)})
	require.Equal(t, http.StatusOK, status, body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	require.NoError(t, err)
	return mfs
}

// bearer is the Authorization header that carries token.
func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// value adds up the series of family name whose labels hold want: a
// counter's or a gauge's value, a histogram's count of observations. ok
// says whether any series matched.
func value(mfs map[string]*dto.MetricFamily, name string, want map[string]string) (sum float64, ok bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
series:
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue series
			}
		}
		ok = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum, ok
}

// With -metrics, GET /metrics shows each guarded call the endpoints made,
// by call and outcome, a refusal by its reason, and the tabs' news, in
// the names the Prometheus exporter gives otelguard's metrics; and it is
// behind the same checks and token as every other route.
func TestMetrics(t *testing.T) {
	fx := fixtures(t)
	s, c := serveConfig(t, &ServerConfig{Watch: &tabguard.Options{EvalTimeout: 5 * time.Second}, LoadTimeout: 10 * time.Second, Metrics: true}, "s3cret")
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/hello")
	_, err := c.Snapshot(ctx, id, SnapshotQuery{}) // one Snapshot
	require.NoError(t, err)
	crash(t, s, id)
	_, err = c.DOM(ctx, id, 0) // refused: the tab crashed
	requireAPIError(t, err, http.StatusInternalServerError, "tab renderer crashed")

	// A crash is counted on the goroutine that reads the browser's events,
	// which may still be at it; a call is counted before it answers.
	var mfs map[string]*dto.MetricFamily
	eventually(t, "the crash in /metrics", func() bool {
		mfs = scrape(t, c)
		_, ok := value(mfs, "tabguard_tab_crashes_total", nil)
		return ok
	})
	tests := []struct {
		name, metric string
		labels       map[string]string
		want         float64
	}{
		{"a snapshot that answered", "tabguard_call_duration_seconds",
			map[string]string{"tabguard_call": "Snapshot", "tabguard_outcome": "ok", "otel_scope_name": "github.com/tabguard/tabguard/otelguard"}, 1},
		{"a DOM read refused", "tabguard_call_duration_seconds",
			map[string]string{"tabguard_call": "DOM", "tabguard_outcome": "refused", "error_type": "ErrTabCrashed"}, 1},
		{"the refusal by its reason", "tabguard_call_refusals_total",
			map[string]string{"tabguard_call": "DOM", "error_type": "ErrTabCrashed"}, 1},
		{"the crash", "tabguard_tab_crashes_total", nil, 1},
		{"the tab the server watches", "tabguard_tabs_watched", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := value(mfs, tt.metric, tt.labels)
			require.True(t, ok, "no %s series with %v", tt.metric, tt.labels)
			assert.Equal(t, tt.want, got)
		})
	}

	u, err := url.Parse(c.BaseURL)
	require.NoError(t, err)
	guarded := []struct {
		name   string
		rc     rawCall
		status int
	}{
		{"no token", rawCall{}, http.StatusUnauthorized},
		{"a wrong token", rawCall{header: bearer("s3cre")}, http.StatusUnauthorized},
		{"a foreign Host", rawCall{host: "attacker.example:" + u.Port(), header: bearer("s3cret")}, http.StatusForbidden},
		{"a web page's Origin", rawCall{header: map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://attacker.example"}}, http.StatusForbidden},
	}
	for _, g := range guarded {
		t.Run(g.name, func(t *testing.T) {
			g.rc.method, g.rc.path = http.MethodGet, "/metrics"
			status, body := send(t, c, g.rc)
			assert.Equal(t, g.status, status, body)
			assert.NotContains(t, body, "tabguard_")
		})
	}
}

// Without -metrics there is no /metrics route, and no Trace.
func TestMetricsOff(t *testing.T) {
	s, c := setup(t, 5*time.Second)
	assert.Nil(t, s.metrics)
	status, _ := send(t, c, rawCall{method: http.MethodGet, path: "/metrics"})
	assert.Equal(t, http.StatusNotFound, status)
}
