package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
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
		got, err := normalOrigin(tt.in)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

// A configuration that cannot work fails the start, saying what to fix,
// and never with a password in the message.
func TestPromptConfigRefused(t *testing.T) {
	const secret = "pw-never-shown-5521"
	vars := env(map[string]string{"PW": secret, "EMPTY": ""})
	policy := config{allowed: "127.0.0.1", blocked: defaultBlocked}.policy()
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	entry := func(origin, env string) string {
		return writeCredentials(t, credentialEntry{Origin: origin, Username: "agent", PasswordEnv: env})
	}
	raw := func(body string) string {
		path := filepath.Join(t.TempDir(), "credentials.json")
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		return path
	}
	tests := []struct{ name, creds, uploads, want string }{
		{"variable not set", entry("http://127.0.0.1:8080", "NOT_SET"), "", "environment variable NOT_SET is not set: set it to the password before the server starts"},
		{"variable empty", entry("http://127.0.0.1:8080", "EMPTY"), "", "environment variable EMPTY is not set"},
		{"no variable", entry("http://127.0.0.1:8080", ""), "", "has no password_env"},
		{"bad origin", entry("http://127.0.0.1:8080/login", "PW"), "", "entry 1: origin \"http://127.0.0.1:8080/login\": an origin has no path"},
		{"origin the policy refuses", entry("https://intranet.example", "PW"), "", "origin https://intranet.example: URL not allowed"},
		{"a password in the file", raw(`[{"origin": "http://127.0.0.1:1", "username": "agent", "password": "` + secret + `"}]`), "", `unknown field "password"`},
		{"not JSON", raw(`{`), "", "write a JSON list of"},
		{"twice", writeCredentials(t, credentialEntry{"http://127.0.0.1:1", "a", "PW"}, credentialEntry{"http://127.0.0.1:1/", "b", "PW"}), "", "entry 2: origin http://127.0.0.1:1 is listed twice"},
		{"no file", filepath.Join(t.TempDir(), "none.json"), "", "-credentials: open "},
		{"no upload directory", "", filepath.Join(t.TempDir(), "none"), "-upload-dir: "},
		{"upload directory is a file", "", file, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadPromptConfig(tt.creds, tt.uploads, policy, vars)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), secret)
		})
	}
	pc, err := loadPromptConfig(entry("http://127.0.0.1:8080/", "PW"), "", policy, vars)
	require.NoError(t, err)
	assert.Equal(t, map[string]tabguard.Credentials{"http://127.0.0.1:8080": {Username: "agent", Password: secret}}, pc.credentials)
}

// Over real stdio, a bad configuration ends the server before it starts a
// browser, with the reason on stderr and never the password.
func TestStdioBadConfig(t *testing.T) {
	const secret = "pw-never-logged-8812"
	creds := writeCredentials(t, credentialEntry{Origin: "http://127.0.0.1:8080", Username: "agent", PasswordEnv: "TABGUARD_TEST_PW"},
		credentialEntry{Origin: "http://127.0.0.1:8081", Username: "agent", PasswordEnv: "TABGUARD_TEST_MISSING"})
	cmd := exec.CommandContext(testContext(t, 60*time.Second), buildServer(t), "-credentials", creds)
	cmd.Env = append(os.Environ(), "TABGUARD_TEST_PW="+secret)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "output: %s", out)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Contains(t, string(out), "entry 2: origin http://127.0.0.1:8081: environment variable TABGUARD_TEST_MISSING is not set")
	assert.NotContains(t, string(out), secret)
	assert.Equal(t, 1, strings.Count(string(out), "\n"), "one line: %s", out)
}
