package cdpws_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/cdpws"
)

// Dial sends the URL's query string and user info, and no error of it
// quotes them.
func TestDial(t *testing.T) {
	t.Parallel()
	closed := startEndpoint(t, endpointOptions{})
	closed.close()
	tests := []struct {
		name    string
		opts    endpointOptions
		url     func(host string) string
		wantMsg string // a part of the error's text; empty: Dial connects
	}{
		{
			name: "token",
			url:  func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret" },
		},
		{
			name: "token and user info",
			opts: endpointOptions{basicAuth: true},
			url:  func(h string) string { return "ws://alice:hunter2@" + h + "/devtools/browser/abc?token=secret" },
		},
		{
			name:    "no token",
			url:     func(h string) string { return "ws://alice:hunter2@" + h + "/devtools/browser/abc" },
			wantMsg: "got 401",
		},
		{
			name:    "wrong token",
			url:     func(h string) string { return "ws://" + h + "/devtools/browser/abc?token=secret-but-wrong" },
			wantMsg: "got 401",
		},
		{
			name:    "wrong path",
			url:     func(h string) string { return "ws://alice:hunter2@" + h + "/devtools/browser/nope?token=secret" },
			wantMsg: "got 404",
		},
		{
			name:    "server closed",
			url:     func(string) string { return "ws://alice:hunter2@" + closed.host + "/devtools/browser/abc?token=secret" },
			wantMsg: "connection refused",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEndpoint(t, tt.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := cdpws.Dial(ctx, tt.url(e.host), nil)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				defer conn.Close()
				msg, err := conn.ReadText()
				require.NoError(t, err)
				assert.JSONEq(t, `{"query":"token=secret"}`, string(msg))
				return
			}
			require.Error(t, err)
			t.Log(err)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assertRedacted(t, err)
		})
	}
}
