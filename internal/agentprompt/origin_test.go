package agentprompt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

func TestNormalOrigin(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "https://Intranet.Example", want: "https://intranet.example"},
		{in: "https://intranet.example:443/", want: "https://intranet.example"},
		{in: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "http://[::1]:80", want: "http://[::1]"},
		{in: "http://[::1]:8080", want: "http://[::1]:8080"},
		{in: "ftp://x", err: "not http or https"},
		{in: "intranet.example", err: "not http or https"},
		{in: "https://x/report", err: "an origin has no path, query or fragment"},
		{in: "https://x?a=b", err: "an origin has no path, query or fragment"},
		{in: "https://u:p@x", err: "a user belongs in username"},
		{in: "https://", err: "no host"},
	}
	for _, tt := range tests {
		got, err := agentprompt.NormalOrigin(tt.in)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
