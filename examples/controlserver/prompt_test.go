package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// syncBuffer is a sink the watchers' goroutines and the client's
// transport may write at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// bodyRecorder copies every answer's body into w as the client reads it.
type bodyRecorder struct {
	next http.RoundTripper
	w    io.Writer
}

func (r bodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	_, _ = r.w.Write(append(data, '\n'))
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// writeCredentials writes a -credentials file of entries for t.
func writeCredentials(t *testing.T, entries ...agentprompt.CredentialEntry) string {
	t.Helper()
	b, err := json.Marshal(entries)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// env is a LookupEnv over a map, so no test sets the process's environment.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

const wrongPassword = "not-the-pw-7731"

// A sign-in the caller allowed with POST /browser/prompt loads the page;
// one it did not allow, on that tab or another, answers ErrSignInRequired
// naming POST /browser/prompt; credentials the site refuses answer
// ErrCredentialsRefused. No password appears in an answer or the log.
func TestPromptSignIn(t *testing.T) {
	fx := fixtures(t)
	site := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(faultrows.SignIn))
		t.Cleanup(srv.Close)
		return srv
	}
	good, other, wrong := site(), site(), site()
	creds := writeCredentials(t,
		agentprompt.CredentialEntry{Origin: good.URL, Username: faultrows.SignInUser, PasswordEnv: "GOOD_PW"},
		agentprompt.CredentialEntry{Origin: other.URL, Username: faultrows.SignInUser, PasswordEnv: "GOOD_PW"},
		agentprompt.CredentialEntry{Origin: wrong.URL, Username: faultrows.SignInUser, PasswordEnv: "WRONG_PW"})
	var logs, bodies syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	_, c := serveConfig(t, &ServerConfig{Watch: &tabguard.Options{EvalTimeout: 5 * time.Second, Logger: logger}, LoadTimeout: 10 * time.Second,
		CredentialsFile: creds, LookupEnv: env(map[string]string{"GOOD_PW": faultrows.SignInPassword, "WRONG_PW": wrongPassword})}, "")
	c.HTTP.Transport = bodyRecorder{next: http.DefaultTransport, w: &bodies}
	c.Long.Transport = c.HTTP.Transport
	ctx := testbrowser.Context(t, 90*time.Second)

	id := open(t, c, fx.URL+"/hello")
	required := `sign-in required: ` + good.URL + ` (realm "tabguard"): POST /browser/prompt with kind sign_in and the origin named here, then POST /browser/navigate again; without credentials for it, POST /browser/navigate to another page`
	_, err := c.Navigate(ctx, id, good.URL+faultrows.SignInPath)
	requireAPIError(t, err, http.StatusInternalServerError, required)

	set, err := c.Prompt(ctx, PromptRequest{Tab: id, Kind: "sign_in", Origin: good.URL + "/"})
	require.NoError(t, err)
	assert.Equal(t, PromptResponse{Tab: id, Kind: "sign_in", Origin: good.URL,
		Next: "POST /browser/navigate (or /browser/reload) to load the page again: its sign-in at " + good.URL + " is answered with the server's credentials"}, set)
	_, err = c.Navigate(ctx, id, good.URL+faultrows.SignInPath)
	require.NoError(t, err)
	d, err := c.DOM(ctx, id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "<p>signed in")

	// Allowed on one tab only: another tab's sign-in at that origin is refused.
	_, err = c.Prompt(ctx, PromptRequest{Tab: id, Kind: "sign_in", Origin: other.URL})
	require.NoError(t, err)
	second := open(t, c, fx.URL+"/hello")
	_, err = c.Navigate(ctx, second, other.URL+faultrows.SignInPath)
	requireAPIError(t, err, http.StatusInternalServerError, strings.ReplaceAll(required, good.URL, other.URL))

	// The site refuses what the server has for it.
	_, err = c.Prompt(ctx, PromptRequest{Tab: second, Kind: "sign_in", Origin: wrong.URL})
	require.NoError(t, err)
	_, err = c.Navigate(ctx, second, wrong.URL+faultrows.SignInPath)
	requireAPIError(t, err, http.StatusInternalServerError, `credentials refused: `+wrong.URL+` (realm "tabguard"): the site refused the credentials the server has for it, which only the server's operator can change: POST /browser/navigate to another page`)

	bad := []struct {
		name string
		req  PromptRequest
		want string
	}{
		{"no credentials for the origin", PromptRequest{Tab: id, Kind: "sign_in", Origin: fx.URL}, "no credentials for " + fx.URL + ": the server signs in only at "},
		{"not an origin", PromptRequest{Tab: id, Kind: "sign_in", Origin: "ftp://x"}, `origin "ftp://x": not http or https`},
		{"no origin", PromptRequest{Tab: id, Kind: "sign_in"}, "missing origin: pass the origin the sign-in error names"},
		{"files with sign_in", PromptRequest{Tab: id, Kind: "sign_in", Origin: good.URL, Files: []string{"a.txt"}}, "files are for kind file_chooser"},
		{"unknown kind", PromptRequest{Tab: id, Kind: "captcha"}, `kind "captcha": pass sign_in (with origin) or file_chooser (with files)`},
		{"unknown tab", PromptRequest{Tab: "nope", Kind: "sign_in", Origin: good.URL}, `unknown tab "nope"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Prompt(ctx, tt.req)
			requireAPIError(t, err, http.StatusBadRequest, tt.want)
		})
	}

	require.NotEmpty(t, logs.String(), "the watchers logged the refusals")
	require.Contains(t, bodies.String(), `"origin":"`+good.URL+`"`, "the answers were recorded")
	for _, out := range []string{logs.String(), bodies.String()} {
		assert.NotContains(t, out, faultrows.SignInPassword)
		assert.NotContains(t, out, wrongPassword)
	}
}

// uploads makes an upload directory holding a.txt ("hello") and sub/, a
// file beside it that it must never give, and a link to that file inside.
func uploads(t *testing.T) (dir, outside string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "uploads")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o600))
	outside = filepath.Join(root, "private.txt")
	require.NoError(t, os.WriteFile(outside, []byte("private"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.txt")))
	return dir, outside
}

// choosers serves faultrows.Chooser's page of two file inputs.
func choosers(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc(faultrows.ChooserPath, faultrows.Chooser)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + faultrows.ChooserPath
}

// A file chooser given a file of the upload directory with
// POST /browser/prompt takes it, once, and the page sees its name; one
// given none is cancelled, naming POST /browser/prompt; a name outside
// the directory is a 400.
func TestPromptFileChooser(t *testing.T) {
	dir, outside := uploads(t)
	_, c := serveConfig(t, &ServerConfig{Watch: &tabguard.Options{EvalTimeout: 5 * time.Second}, LoadTimeout: 10 * time.Second, UploadDir: dir}, "")
	ctx := testbrowser.Context(t, 90*time.Second)
	page := choosers(t)
	id := open(t, c, page)

	cancelled := "file chooser was cancelled: selectSingle input: no files were given with POST /browser/prompt: the page was told no file was chosen: " +
		"POST /browser/prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then POST /browser/click on the input again"
	_, err := c.Click(ctx, id, faultrows.ChooserX, faultrows.ChooserSingleY)
	requireAPIError(t, err, http.StatusInternalServerError, cancelled)

	set, err := c.Prompt(ctx, PromptRequest{Tab: id, Kind: "file_chooser", Files: []string{"a.txt"}})
	require.NoError(t, err)
	assert.Equal(t, PromptResponse{Tab: id, Kind: "file_chooser", Files: []string{"a.txt"},
		Next: "POST /browser/click on the file input again: its chooser gets these files, once"}, set)
	got, err := c.Click(ctx, id, faultrows.ChooserX, faultrows.ChooserSingleY)
	require.NoError(t, err)
	assert.Equal(t, ClickResponse{Tab: id, URL: page, Tag: "input", Files: []string{"a.txt"}}, got, "the input took the file")
	seen, err := rodPage(t, id).Context(ctx).Eval(faultrows.ChooserSeen, 2)
	require.NoError(t, err)
	assert.Equal(t, "one:cancel one:change:a.txt/5", seen.Value.Str(), "the page got the file")
	_, err = c.Click(ctx, id, faultrows.ChooserX, faultrows.ChooserSingleY)
	requireAPIError(t, err, http.StatusInternalServerError, cancelled) // the files were given once

	bad := []struct {
		name  string
		files []string
		want  string
	}{
		{"parent", []string{"../private.txt"}, `file "../private.txt": pass a name inside the upload directory, with no .. and not an absolute path`},
		{"absolute", []string{outside}, `file "` + outside + `": pass a name inside the upload directory`},
		{"link out", []string{"link.txt"}, `file "link.txt" links out of the upload directory: the server gives only files inside it`},
		{"missing", []string{"missing.txt"}, `file "missing.txt" does not exist in the upload directory`},
		{"directory", []string{"sub"}, `file "sub" is not a regular file`},
		{"one bad of two", []string{"a.txt", "../private.txt"}, `file "../private.txt"`},
		{"none", nil, "missing files: pass the names of files in the server's upload directory"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Prompt(ctx, PromptRequest{Tab: id, Kind: "file_chooser", Files: tt.files})
			requireAPIError(t, err, http.StatusBadRequest, tt.want)
		})
	}
	_, err = c.Click(ctx, id, faultrows.ChooserX, faultrows.ChooserSingleY)
	requireAPIError(t, err, http.StatusInternalServerError, cancelled) // a refused name sets nothing
	_, err = c.Prompt(ctx, PromptRequest{Tab: id, Kind: "sign_in", Origin: "http://127.0.0.1:1"})
	requireAPIError(t, err, http.StatusBadRequest, "no credentials for http://127.0.0.1:1: the server has none (-credentials), so it signs in nowhere")
}

// Without an upload directory, the server gives no file, and says so.
func TestFileChooserNoUploads(t *testing.T) {
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 60*time.Second)
	id := open(t, c, choosers(t))
	_, err := c.Click(ctx, id, faultrows.ChooserX, faultrows.ChooserMultipleY)
	requireAPIError(t, err, http.StatusInternalServerError,
		"file chooser was cancelled: selectMultiple input: the page was told no file was chosen: the server has no upload directory, so it gives pages no files")
	_, err = c.Prompt(ctx, PromptRequest{Tab: id, Kind: "file_chooser", Files: []string{"a.txt"}})
	requireAPIError(t, err, http.StatusBadRequest, agentprompt.ErrNoUploadDir.Error())
	got, err := c.Click(ctx, id, 500, 500)
	require.NoError(t, err)
	assert.Equal(t, "html", got.Tag, "a click on no input opens nothing")
}

// A configuration that cannot work fails NewServer, saying what to fix,
// and never with a password in the message.
func TestPromptConfigRefused(t *testing.T) {
	const secret = "pw-never-shown-5521"
	vars := env(map[string]string{"PW": secret})
	entry := func(origin, env string) string {
		return writeCredentials(t, agentprompt.CredentialEntry{Origin: origin, Username: "agent", PasswordEnv: env})
	}
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"variable not set", ServerConfig{CredentialsFile: entry("http://127.0.0.1:8080", "NOT_SET")}, "environment variable NOT_SET is not set: set it to the password before the server starts"},
		{"bad origin", ServerConfig{CredentialsFile: entry("http://127.0.0.1:8080/login", "PW")}, `origin "http://127.0.0.1:8080/login": an origin has no path`},
		{"origin the policy refuses", ServerConfig{CredentialsFile: entry("http://169.254.169.254", "PW")}, "origin http://169.254.169.254: URL not allowed"},
		{"origin not allowed", ServerConfig{Watch: &tabguard.Options{URLs: &tabguard.URLPolicy{AllowedOrigins: []string{"127.0.0.1"}}},
			CredentialsFile: entry("https://intranet.example", "PW")}, "its origin https://intranet.example is not among the allowed ones"},
		{"no upload directory", ServerConfig{UploadDir: filepath.Join(t.TempDir(), "none")}, "-upload-dir: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.LookupEnv = vars
			_, err := NewServer(testbrowser.Shared(t).Browser, &tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), secret)
		})
	}
}

// Every prompt reason names an endpoint of this server, never a Go call,
// with or without something configured to get past it.
func TestPromptAdvice(t *testing.T) {
	reasons := []error{tabguard.ErrSignInRequired, tabguard.ErrCredentialsRefused, tabguard.ErrFileChooser, tabguard.ErrLocalNetworkDenied}
	configured := agentprompt.Config{Credentials: map[string]tabguard.Credentials{"http://x": {Username: "u", Password: "p"}}, UploadDir: "/srv/uploads"}
	for _, pc := range []agentprompt.Config{{}, configured} {
		advice := promptAdvice(pc)
		for _, reason := range reasons {
			for _, frame := range []string{"", "F1"} {
				detail := "x"
				if reason == tabguard.ErrFileChooser {
					detail = "selectSingle input: Options.FileChooser chose no file"
				}
				be := advice.Refusal(&tabguard.BlockedError{Reason: reason, Frame: frame, Detail: detail})
				_, msg := apiError(be)
				assert.Contains(t, msg, "/browser/", "%v names no endpoint: %s", reason, msg)
				assert.NotContains(t, msg, "Watcher.")
				assert.NotContains(t, msg, "Options.")
			}
		}
	}
	be := promptAdvice(configured).Refusal(&tabguard.BlockedError{Reason: tabguard.ErrFileChooser, Detail: "selectSingle input: Options.FileChooser chose 2 files for a single-file input"})
	_, msg := apiError(be)
	assert.Equal(t, "file chooser was cancelled: selectSingle input: it takes one file, and POST /browser/prompt gave several: the page was told no file was chosen: "+
		"POST /browser/prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then POST /browser/click on the input again", msg)
	be = promptAdvice(configured).Refusal(&tabguard.BlockedError{Reason: tabguard.ErrLocalNetworkDenied, Detail: "loopback-network for 127.0.0.1:9000"})
	_, msg = apiError(be)
	assert.Equal(t, "local network request denied: loopback-network for 127.0.0.1:9000: the server lets no page reach this machine or the local network, and the tab still answers: POST /browser/navigate to another page", msg)
}
