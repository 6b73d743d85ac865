package agentprompt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// SignInOrigin takes only an origin the server has credentials for, and
// ends its refusal with the server's own words.
func TestSignInOrigin(t *testing.T) {
	const elsewhere = "go to another page"
	cfg := agentprompt.Config{Credentials: map[string]tabguard.Credentials{
		"http://b.example": {Username: "u", Password: "p"},
		"http://a.example": {Username: "u", Password: "p"},
	}}
	got, err := cfg.SignInOrigin("HTTP://A.example:80/", elsewhere)
	require.NoError(t, err)
	assert.Equal(t, "http://a.example", got)

	tests := []struct {
		name string
		cfg  agentprompt.Config
		raw  string
		want string
	}{
		{"no origin", cfg, "", "missing origin: pass the origin the sign-in error names, such as http://127.0.0.1:8080"},
		{"not an origin", cfg, "ftp://x", `origin "ftp://x": not http or https: write it as http(s)://host[:port]`},
		{"not configured", cfg, "http://c.example", "no credentials for http://c.example: the server signs in only at http://a.example, http://b.example: " + elsewhere},
		{"none configured", agentprompt.Config{}, "http://c.example", "no credentials for http://c.example: the server has none (-credentials), so it signs in nowhere: " + elsewhere},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.SignInOrigin(tt.raw, elsewhere)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
