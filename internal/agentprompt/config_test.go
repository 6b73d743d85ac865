package agentprompt_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// writeCredentials writes a -credentials file of entries for t.
func writeCredentials(t *testing.T, entries ...agentprompt.CredentialEntry) string {
	t.Helper()
	b, err := json.Marshal(entries)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// env is a lookupEnv over a map, so no test sets the process's environment.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

// A configuration that cannot work fails the start, saying what to fix,
// and never with a password in the message.
func TestLoadConfigRefused(t *testing.T) {
	const secret = "pw-never-shown-5521"
	vars := env(map[string]string{"PW": secret, "EMPTY": ""})
	policy := &tabguard.URLPolicy{AllowedOrigins: []string{"127.0.0.1"}}
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	entry := func(origin, env string) string {
		return writeCredentials(t, agentprompt.CredentialEntry{Origin: origin, Username: "agent", PasswordEnv: env})
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
		{"no username", writeCredentials(t, agentprompt.CredentialEntry{Origin: "http://127.0.0.1:8080", PasswordEnv: "PW"}), "", "origin http://127.0.0.1:8080 has no username"},
		{"bad origin", entry("http://127.0.0.1:8080/login", "PW"), "", "entry 1: origin \"http://127.0.0.1:8080/login\": an origin has no path"},
		{"origin the policy refuses", entry("https://intranet.example", "PW"), "", "origin https://intranet.example: URL not allowed"},
		{"a password in the file", raw(`[{"origin": "http://127.0.0.1:1", "username": "agent", "password": "` + secret + `"}]`), "", `unknown field "password"`},
		{"not JSON", raw(`{`), "", "write a JSON list of"},
		{"twice", writeCredentials(t, agentprompt.CredentialEntry{"http://127.0.0.1:1", "a", "PW"}, agentprompt.CredentialEntry{"http://127.0.0.1:1/", "b", "PW"}), "", "entry 2: origin http://127.0.0.1:1 is listed twice"},
		{"no file", filepath.Join(t.TempDir(), "none.json"), "", "-credentials: open "},
		{"no upload directory", "", filepath.Join(t.TempDir(), "none"), "-upload-dir: "},
		{"upload directory is a file", "", file, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agentprompt.LoadConfig(tt.creds, tt.uploads, policy, vars)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), secret)
		})
	}
}

// A good configuration keeps each origin as NormalOrigin writes it, and
// the upload directory absolute with its links resolved.
func TestLoadConfig(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "uploads")
	require.NoError(t, os.Mkdir(dir, 0o755))
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(dir, link))
	policy := &tabguard.URLPolicy{AllowedOrigins: []string{"127.0.0.1"}}
	creds := writeCredentials(t, agentprompt.CredentialEntry{Origin: "http://127.0.0.1:8080/", Username: "agent", PasswordEnv: "PW"})

	got, err := agentprompt.LoadConfig(creds, link, policy, env(map[string]string{"PW": "pw"}))
	require.NoError(t, err)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, agentprompt.Config{
		Credentials: map[string]tabguard.Credentials{"http://127.0.0.1:8080": {Username: "agent", Password: "pw"}},
		UploadDir:   real,
	}, got)

	none, err := agentprompt.LoadConfig("", "", nil, env(nil))
	require.NoError(t, err)
	assert.Equal(t, agentprompt.Config{}, none, "nothing configured answers nothing")
}
