package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// wrongPassword is the password of the entry whose site refuses it.
const wrongPassword = "not-the-pw-7731"

// syncBuffer is a log sink the watchers' goroutines may write at once.
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

// toolLog calls tools and keeps every result and error text, so a test
// can hold that none gives a secret away.
type toolLog struct {
	cs   *mcp.ClientSession
	seen []string
}

func (r *toolLog) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res := call(t, r.cs, name, args)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	r.seen = append(r.seen, string(b))
	return res
}

func (r *toolLog) ok(t *testing.T, name string, args map[string]any, out any) {
	t.Helper()
	res := r.call(t, name, args)
	require.False(t, res.IsError, "%s: %s", name, text(t, res))
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out))
	}
}

func (r *toolLog) fails(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	res := r.call(t, name, args)
	require.True(t, res.IsError, "%s succeeded: %v", name, res.StructuredContent)
	return text(t, res)
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

// env is a lookupEnv over a map, so no test sets the process's environment.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

// A sign-in the agent allowed with handle_prompt loads the page; one it did
// not allow, on that tab or another, reads ErrSignInRequired worded with
// handle_prompt; credentials the site refuses read ErrCredentialsRefused.
// No password appears in a tool result or the watchers' log.
func TestHandlePromptSignIn(t *testing.T) {
	home := pages(t)
	site := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(faultrows.SignIn))
		t.Cleanup(srv.Close)
		return srv
	}
	good, other, wrong := site(), site(), site()
	creds := writeCredentials(t,
		agentprompt.CredentialEntry{Origin: good.URL, Username: faultrows.SignInUser, PasswordEnv: "GOOD_PW"},
		agentprompt.CredentialEntry{Origin: other.URL + "/", Username: faultrows.SignInUser, PasswordEnv: "GOOD_PW"},
		agentprompt.CredentialEntry{Origin: wrong.URL, Username: faultrows.SignInUser, PasswordEnv: "WRONG_PW"})
	policy := config{blocked: defaultBlocked}.policy()
	pc, err := agentprompt.LoadConfig(creds, "", policy, env(map[string]string{"GOOD_PW": faultrows.SignInPassword, "WRONG_PW": wrongPassword}))
	require.NoError(t, err)
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := &toolLog{cs: connectPrompts(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: policy, Logger: logger}, nil, pc)}

	tab := openTab(t, r.cs, home.URL)
	required := `sign-in required: ` + good.URL + ` (realm "tabguard"): call handle_prompt with kind sign_in and the origin named here, then navigate again; without credentials for it, call navigate for another page`
	assert.Equal(t, required, r.fails(t, "navigate", map[string]any{"tab": tab, "url": good.URL + faultrows.SignInPath}), "not allowed yet")

	var set HandlePromptOutput
	r.ok(t, "handle_prompt", map[string]any{"tab": tab, "kind": "sign_in", "origin": good.URL}, &set)
	assert.Equal(t, HandlePromptOutput{Tab: tab, Kind: "sign_in", Origin: good.URL,
		Next: "call navigate (or reload_tab) to load the page again: its sign-in at " + good.URL + " is answered with the server's credentials"}, set)
	r.ok(t, "navigate", map[string]any{"tab": tab, "url": good.URL + faultrows.SignInPath}, nil)
	var v EvalInTabOutput
	r.ok(t, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"}, &v)
	assert.Equal(t, "signed in", v.Value)

	// Allowed on one tab only: another tab's sign-in at that origin is refused.
	r.ok(t, "handle_prompt", map[string]any{"tab": tab, "kind": "sign_in", "origin": other.URL}, nil)
	second := openTab(t, r.cs, home.URL)
	assert.Equal(t, strings.ReplaceAll(required, good.URL, other.URL),
		r.fails(t, "navigate", map[string]any{"tab": second, "url": other.URL + faultrows.SignInPath}))

	// The site refuses what the server has for it.
	r.ok(t, "handle_prompt", map[string]any{"tab": second, "kind": "sign_in", "origin": wrong.URL}, nil)
	assert.Equal(t, `credentials refused: `+wrong.URL+` (realm "tabguard"): the site refused the credentials the server has for it, which only the server's operator can change: call navigate for another page`,
		r.fails(t, "navigate", map[string]any{"tab": second, "url": wrong.URL + faultrows.SignInPath}))
	r.ok(t, "navigate", map[string]any{"tab": second, "url": home.URL}, nil)

	bad := []struct{ name, kind, origin, want string }{
		{"no credentials for the origin", "sign_in", home.URL,
			"no credentials for " + home.URL + ": the server signs in only at "},
		{"not an origin", "sign_in", home.URL + "/path", `origin "` + home.URL + `/path": an origin has no path, query or fragment: write it as http(s)://host[:port]`},
		{"no origin", "sign_in", "", "missing origin: pass the origin the sign-in error names"},
		{"unknown kind", "captcha", "", `kind "captcha": pass sign_in (with origin) or file_chooser (with files)`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, r.fails(t, "handle_prompt", map[string]any{"tab": tab, "kind": tt.kind, "origin": tt.origin}), tt.want)
		})
	}
	assert.Contains(t, r.fails(t, "handle_prompt", map[string]any{"tab": tab, "kind": "sign_in", "origin": good.URL, "files": []string{"a.txt"}}),
		"files are for kind file_chooser")

	require.NotEmpty(t, logs.String(), "the watchers logged the refusals")
	for _, out := range append(r.seen, logs.String()) {
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

// A file chooser given a file of the upload directory with handle_prompt
// takes it, once, and the page sees its name; one given none is cancelled,
// worded with handle_prompt; a name outside the directory is refused.
func TestHandlePromptFileChooser(t *testing.T) {
	dir, outside := uploads(t)
	pc, err := agentprompt.LoadConfig("", dir, nil, env(nil))
	require.NoError(t, err)
	cs := connectPrompts(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: defaultBlocked}.policy()}, nil, pc)
	mux := http.NewServeMux()
	mux.HandleFunc(faultrows.ChooserPath, faultrows.Chooser)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab := openTab(t, cs, srv.URL+faultrows.ChooserPath)
	clickOne := map[string]any{"tab": tab, "x": faultrows.ChooserX, "y": faultrows.ChooserSingleY}

	cancelled := "file chooser was cancelled: selectSingle input: no files were given with handle_prompt: the page was told no file was chosen: " +
		"call handle_prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then click the input again"
	assert.Equal(t, cancelled, fails(t, cs, "click", clickOne))

	var set HandlePromptOutput
	ok(t, cs, "handle_prompt", map[string]any{"tab": tab, "kind": "file_chooser", "files": []string{"a.txt"}}, &set)
	assert.Equal(t, []string{"a.txt"}, set.Files)
	var got ClickOutput
	ok(t, cs, "click", clickOne, &got)
	assert.Equal(t, ClickOutput{Tab: tab, URL: srv.URL + faultrows.ChooserPath, Tag: "input", Files: []string{"a.txt"}}, got)
	var v EvalInTabOutput
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => (" + faultrows.ChooserSeen + ")(2)"}, &v)
	assert.Equal(t, "one:cancel one:change:a.txt/5", v.Value, "the page got the file")
	assert.Equal(t, cancelled, fails(t, cs, "click", clickOne), "the files were given once")

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
			msg := fails(t, cs, "handle_prompt", map[string]any{"tab": tab, "kind": "file_chooser", "files": tt.files})
			assert.Equal(t, tt.want, prefix(msg, len(tt.want)))
		})
	}
	assert.Equal(t, cancelled, fails(t, cs, "click", clickOne), "a refused name sets nothing")
	assert.Contains(t, fails(t, cs, "handle_prompt", map[string]any{"tab": tab, "kind": "sign_in", "origin": srv.URL}),
		"no credentials for "+srv.URL+": the server has none (-credentials), so it signs in nowhere")
}

// prefix is s cut to n bytes at most.
func prefix(s string, n int) string { return s[:min(len(s), n)] }

// Without an upload directory, the server gives no file, and says so.
func TestFileChooserNoUploads(t *testing.T) {
	cs := connect(t)
	mux := http.NewServeMux()
	mux.HandleFunc(faultrows.ChooserPath, faultrows.Chooser)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tab := openTab(t, cs, srv.URL+faultrows.ChooserPath)
	assert.Equal(t, "file chooser was cancelled: selectMultiple input: the page was told no file was chosen: the server has no upload directory, so it gives pages no files",
		fails(t, cs, "click", map[string]any{"tab": tab, "x": faultrows.ChooserX, "y": faultrows.ChooserMultipleY}))
	assert.Equal(t, agentprompt.ErrNoUploadDir.Error(), fails(t, cs, "handle_prompt", map[string]any{"tab": tab, "kind": "file_chooser", "files": []string{"a.txt"}}))
	var got ClickOutput
	ok(t, cs, "click", map[string]any{"tab": tab, "x": 500, "y": 500}, &got)
	assert.Equal(t, "html", got.Tag, "a click on no input opens nothing")
}

// A script's request from a public page to this machine reads
// ErrLocalNetworkDenied, worded with the server's tools: the server grants
// no page the local network, and the tab still answers.
func TestLocalNetworkDenied(t *testing.T) {
	pub, target := faultrows.LocalNetworkServers(t)
	b := launchPublic(t, pub)
	s, tools, err := newServer(b, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: defaultBlocked}.policy()}, nil, agentprompt.Config{})
	require.NoError(t, err)
	ct, st := mcp.NewInMemoryTransports()
	ctx := testContext(t, 30*time.Second)
	ss, err := s.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cs.Close())
		require.NoError(t, ss.Wait())
		require.NoError(t, tools.Close())
	})
	tab := openTab(t, cs, pub.URL)
	host := strings.TrimPrefix(target.URL, "http://")
	assert.Equal(t, "local network request denied: loopback-network for "+host+": the server lets no page reach this machine or the local network, and the tab still answers: call eval_in_tab without that request, or navigate for another page",
		fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": faultrows.FetchJS(target.URL + faultrows.LocalNetworkPath)}))
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}, nil)
}

// launchPublic launches a headless Chromium of the test's own that takes
// the server pub for a public site, and ends it when t does.
func launchPublic(t *testing.T, pub *httptest.Server) *rod.Browser {
	t.Helper()
	bin, found := launcher.LookPath()
	require.True(t, found, "no Chromium found: install the chromium package")
	name, value := faultrows.PublicFlag(pub)
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).UserDataDir(filepath.Join(t.TempDir(), "profile")).
		Set("disable-gpu").Set("no-first-run").Set("disable-background-networking").Set("disable-sync").
		Set(flags.Flag(name), value)
	t.Cleanup(func() { kill(l) }) // before TempDir removes the profile: cleanups run last first
	u, err := l.Launch()
	require.NoError(t, err)
	b := rod.New().ControlURL(u)
	require.NoError(t, b.Connect())
	return b
}
