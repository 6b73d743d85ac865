package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/tabguard/tabguard"
)

// promptConfig is what the server may answer prompts with: credentials
// by origin, from the -credentials file, and the -upload-dir, the only
// place a file chooser may be given files from. The zero value answers
// nothing: every sign-in is refused and every file chooser cancelled.
type promptConfig struct {
	credentials map[string]tabguard.Credentials // by origin, as normalOrigin writes it; never shown
	uploadDir   string                          // absolute, links resolved; empty: no uploads
}

// credentialEntry is one entry of the -credentials file. The password is
// not in the file: PasswordEnv names the environment variable that holds
// it, read once as the server starts.
type credentialEntry struct {
	Origin      string `json:"origin"`
	Username    string `json:"username"`
	PasswordEnv string `json:"password_env"`
}

// loadPromptConfig reads the -credentials file at credFile (none when
// empty), with each password from lookupEnv, and checks the -upload-dir
// uploadDir (none when empty). An origin p does not open is refused: the
// credentials could never be used, and a configuration that says
// otherwise is a mistake. Errors name the file, the entry and the
// variable, never a password.
func loadPromptConfig(credFile, uploadDir string, p *tabguard.URLPolicy, lookupEnv func(string) (string, bool)) (promptConfig, error) {
	var pc promptConfig
	if credFile != "" {
		creds, err := loadCredentials(credFile, p, lookupEnv)
		if err != nil {
			return promptConfig{}, err
		}
		pc.credentials = creds
	}
	if uploadDir != "" {
		dir, err := resolveUploadDir(uploadDir)
		if err != nil {
			return promptConfig{}, err
		}
		pc.uploadDir = dir
	}
	return pc, nil
}

// loadCredentials reads the credentials file at path.
func loadCredentials(path string, p *tabguard.URLPolicy, lookupEnv func(string) (string, bool)) (map[string]tabguard.Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-credentials: %w", err)
	}
	var entries []credentialEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // a "password" field is refused: passwords come from the environment
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("-credentials %s: %v: write a JSON list of {\"origin\", \"username\", \"password_env\"}", path, err)
	}
	creds := map[string]tabguard.Credentials{}
	for i, e := range entries {
		where := fmt.Sprintf("-credentials %s: entry %d", path, i+1)
		origin, err := normalOrigin(e.Origin)
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

// normalOrigin returns s as scheme://host[:port]: http or https, the host
// in lower case, the port left out when it is the scheme's default, as
// Chrome names the origin that asks for credentials. Anything more (a
// path, a query, a user) is an error.
func normalOrigin(s string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("origin %q: %s: write it as http(s)://host[:port]", s, why)
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", bad("not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return "", bad("not http or https")
	case u.Host == "" || u.Hostname() == "":
		return "", bad("no host")
	case u.User != nil:
		return "", bad("a user belongs in username")
	case u.Opaque != "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", bad("an origin has no path, query or fragment")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "80" && scheme == "http" || port == "443" && scheme == "https" {
		port = ""
	}
	if port == "" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host, nil
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}

// resolveUploadDir returns dir absolute, with its links resolved, so that
// a file's own path can be checked against it.
func resolveUploadDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("-upload-dir: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("-upload-dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("-upload-dir %s is not a directory", dir)
	}
	return abs, nil
}

// errNoUploadDir is the answer to files asked for when the server has no
// upload directory.
var errNoUploadDir = errors.New("the server has no upload directory (-upload-dir): it gives a page no files")

// uploadPath returns the absolute path of the file name inside the upload
// directory dir: a name that leaves it (.., an absolute path, a link to
// elsewhere), a file that does not exist or one that is not a regular file
// is an error.
func uploadPath(dir, name string) (string, error) {
	if dir == "" {
		return "", errNoUploadDir
	}
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("file %q: pass a name inside the upload directory, with no .. and not an absolute path", name)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("file %q does not exist in the upload directory", name)
	}
	if err != nil {
		return "", fmt.Errorf("file %q: %w", name, err)
	}
	if rel, err := filepath.Rel(dir, real); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("file %q links out of the upload directory: the server gives only files inside it", name)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("file %q: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("file %q is not a regular file", name)
	}
	return real, nil
}
