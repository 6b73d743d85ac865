package cdpws_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/tabstate"
)

// assertRedacted checks that err's text holds none of the caller's
// secrets, nor does the URL of a *url.Error in its chain.
func assertRedacted(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{token, user, password} {
		assert.NotContains(t, err.Error(), s, "the URL's secrets stay out of errors")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		for _, s := range []string{token, user, password} {
			assert.NotContains(t, ue.URL, s, "the *url.Error's URL is redacted too")
		}
	}
}

// ResolveURL keeps the caller's query string, and user info, on the
// /json/version request (the endpoint answers 401 without the token) and
// on the URL it resolves, merged into the answer's own query.
func TestResolveURLKeepsQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  endpointOptions
		url   func(host string) string // the caller's endpoint URL
		want  func(host string) string // the resolved WebSocket URL
		query string                   // the query the WebSocket was opened with
	}{
		{
			name:  "token only",
			url:   func(h string) string { return "http://" + h + "?token=secret" },
			want:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret" },
			query: "token=secret",
		},
		{
			name:  "token and a trailing slash",
			url:   func(h string) string { return "http://" + h + "/?token=secret" },
			want:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret" },
			query: "token=secret",
		},
		{
			name:  "answer with a query of its own",
			opts:  endpointOptions{ownQuery: "session=1"},
			url:   func(h string) string { return "http://" + h + "?token=secret" },
			want:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?session=1&token=secret" },
			query: "session=1&token=secret",
		},
		{
			name:  "the caller's value wins a clash",
			opts:  endpointOptions{ownQuery: "token=stale&session=1&token=older"},
			url:   func(h string) string { return "http://" + h + "?token=secret" },
			want:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?session=1&token=secret" },
			query: "session=1&token=secret",
		},
		{
			name: "the caller's pairs keep their bytes and order",
			opts: endpointOptions{ownQuery: "session=1"},
			url: func(h string) string {
				return "http://" + h + "?token=secret&launch=%7B%22headless%22%3Atrue%7D&stealth"
			},
			want: func(h string) string {
				return "ws://" + h + "/devtools/browser/abc?session=1&token=secret&launch=%7B%22headless%22%3Atrue%7D&stealth"
			},
			query: "session=1&token=secret&launch=%7B%22headless%22%3Atrue%7D&stealth",
		},
		{
			name:  "the answer names another address",
			opts:  endpointOptions{answerHost: "127.0.0.1:9222"},
			url:   func(h string) string { return "http://" + h + "?token=secret" },
			want:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret" },
			query: "token=secret",
		},
		{
			name:  "user info",
			opts:  endpointOptions{basicAuth: true},
			url:   func(h string) string { return "http://alice:hunter2@" + h + "?token=secret" },
			want:  func(h string) string { return "ws://alice:hunter2@" + h + "/devtools/browser/abc?token=secret" },
			query: "token=secret",
		},
		{
			name:  "a ws URL stays as it is",
			url:   func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret" },
			want:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret" },
			query: "token=secret",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEndpoint(t, tt.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err := cdpws.ResolveURL(ctx, tt.url(e.host), nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want(e.host), got)

			conn, err := cdpws.Dial(ctx, got, nil)
			require.NoError(t, err, "the endpoint takes the resolved URL")
			defer conn.Close()
			msg, err := conn.ReadText()
			require.NoError(t, err)
			want, err := json.Marshal(map[string]string{"query": tt.query})
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(msg), "the query the WebSocket was opened with")
		})
	}
}

// No error of ResolveURL quotes the caller's query string or user info,
// nor does the URL of the *url.Error beneath.
func TestResolveURLErrorsRedacted(t *testing.T) {
	t.Parallel()
	closed := startEndpoint(t, endpointOptions{})
	closed.close()
	tests := []struct {
		name    string
		opts    endpointOptions
		url     func(host string) string
		timeout time.Duration // 10 s when zero
		wantMsg string        // a part of the error's text
		wantIs  error         // nil: none checked
	}{
		{
			name:    "wrong token",
			url:     func(h string) string { return "http://alice:hunter2@" + h + "?token=secret-but-wrong" },
			wantMsg: "status 401 Unauthorized",
		},
		{
			name:    "server closed",
			url:     func(string) string { return "http://alice:hunter2@" + closed.host + "?token=secret" },
			wantMsg: "connection refused",
		},
		{
			name:    "bad JSON",
			opts:    endpointOptions{version: `<html>token=secret</html>`},
			url:     func(h string) string { return "http://" + h + "?token=secret" },
			wantMsg: "invalid character",
		},
		{
			name:    "no webSocketDebuggerUrl",
			opts:    endpointOptions{version: `{"Browser":"Chrome/140.0.0.0"}`},
			url:     func(h string) string { return "http://alice:hunter2@" + h + "?token=secret" },
			wantMsg: "no webSocketDebuggerUrl in the answer",
		},
		{
			name:    "a webSocketDebuggerUrl that does not parse",
			opts:    endpointOptions{version: `{"webSocketDebuggerUrl":"ws://alice:hunter2@[::1/x?token=secret"}`},
			url:     func(h string) string { return "http://" + h + "?token=secret" },
			wantMsg: "missing ']' in host",
		},
		{
			name:    "deadline",
			opts:    endpointOptions{stall: true},
			url:     func(h string) string { return "http://alice:hunter2@" + h + "?token=secret" },
			timeout: 200 * time.Millisecond,
			wantMsg: "context deadline exceeded",
			wantIs:  context.DeadlineExceeded,
		},
		{
			name:    "no scheme",
			url:     func(h string) string { return "alice:hunter2@" + h + "?token=secret" },
			wantMsg: "DevTools URL",
			wantIs:  tabstate.ErrInvalidArgument,
		},
		{
			name:    "no host",
			url:     func(string) string { return "http://alice:hunter2@/x?token=secret" },
			wantMsg: "pass ws://host:port/... or http://host:port",
			wantIs:  tabstate.ErrInvalidArgument,
		},
		{
			name:    "a scheme of its own",
			url:     func(h string) string { return "ftp://alice:hunter2@" + h + "/x?token=secret" },
			wantMsg: "the scheme must be ws, wss, http or https",
			wantIs:  tabstate.ErrInvalidArgument,
		},
		{
			name:    "network-path reference",
			url:     func(h string) string { return "//alice:hunter2@" + h + "/x?token=secret" },
			wantMsg: "the scheme must be ws, wss, http or https",
			wantIs:  tabstate.ErrInvalidArgument,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEndpoint(t, tt.opts)
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			got, err := cdpws.ResolveURL(ctx, tt.url(e.host), nil)
			require.Error(t, err, "ResolveURL() = %q", got)
			t.Log(err)
			assert.Contains(t, err.Error(), tt.wantMsg)
			if tt.wantIs != nil {
				assert.ErrorIs(t, err, tt.wantIs)
			}
			assertRedacted(t, err)
		})
	}
}
