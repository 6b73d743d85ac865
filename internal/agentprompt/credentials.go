package agentprompt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/tabguard/tabguard"
)

// CredentialEntry is one entry of the -credentials file. The password is
// not in the file: PasswordEnv names the environment variable that holds
// it, read once as the server starts.
type CredentialEntry struct {
	Origin      string `json:"origin"`
	Username    string `json:"username"`
	PasswordEnv string `json:"password_env"`
}

// loadCredentials reads the credentials file at path.
func loadCredentials(path string, p *tabguard.URLPolicy, lookupEnv func(string) (string, bool)) (map[string]tabguard.Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-credentials: %w", err)
	}
	var entries []CredentialEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a "password" field is refused: passwords come from the environment
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("-credentials %s: %v: write a JSON list of {\"origin\", \"username\", \"password_env\"}", path, err)
	}
	creds := map[string]tabguard.Credentials{}
	for i, e := range entries {
		where := fmt.Sprintf("-credentials %s: entry %d", path, i+1)
		origin, err := NormalOrigin(e.Origin)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if err := p.Check(origin + "/"); err != nil {
			return nil, fmt.Errorf("%s: origin %s: %v: the server does not open it, so it signs in nowhere there; allow it with -allowed-origins or remove the entry", where, origin, err)
		}
		if _, dup := creds[origin]; dup {
			return nil, fmt.Errorf("%s: origin %s is listed twice: keep one entry for it", where, origin)
		}
		if e.Username == "" {
			return nil, fmt.Errorf("%s: origin %s has no username", where, origin)
		}
		if e.PasswordEnv == "" {
			return nil, fmt.Errorf("%s: origin %s has no password_env: name the environment variable that holds its password", where, origin)
		}
		password, ok := lookupEnv(e.PasswordEnv)
		if !ok || password == "" {
			return nil, fmt.Errorf("%s: origin %s: environment variable %s is not set: set it to the password before the server starts", where, origin, e.PasswordEnv)
		}
		creds[origin] = tabguard.Credentials{Username: e.Username, Password: password}
	}
	return creds, nil
}

// SignInOrigin checks that raw is an origin c has credentials for, and
// returns it as the watchers' Credentials callback will see it. elsewhere
// ends the error for an origin without credentials: the server's words for
// going to another page, such as "call navigate for another page".
func (c Config) SignInOrigin(raw, elsewhere string) (string, error) {
	if raw == "" {
		return "", errors.New("missing origin: pass the origin the sign-in error names, such as http://127.0.0.1:8080")
	}
	origin, err := NormalOrigin(raw)
	if err != nil {
		return "", err
	}
	if _, ok := c.Credentials[origin]; !ok {
		known := slices.Sorted(maps.Keys(c.Credentials))
		if len(known) == 0 {
			return "", fmt.Errorf("no credentials for %s: the server has none (-credentials), so it signs in nowhere: %s", origin, elsewhere)
		}
		return "", fmt.Errorf("no credentials for %s: the server signs in only at %s: %s", origin, strings.Join(known, ", "), elsewhere)
	}
	return origin, nil
}
