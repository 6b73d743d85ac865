package main

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// rawCall is one request as a web page in the user's browser would send it.
type rawCall struct {
	method, path, body string
	host               string // empty: the server's own
	header             map[string]string
}

// send sends rc to the server c calls, with no help from the Client, and
// returns the status and body.
func send(t *testing.T, c *Client, rc rawCall) (int, string) {
	t.Helper()
	var body io.Reader
	if rc.body != "" {
		body = strings.NewReader(rc.body)
	}
	req, err := http.NewRequestWithContext(testbrowser.Context(t, 20*time.Second), rc.method, c.BaseURL+rc.path, body)
	require.NoError(t, err)
	if rc.host != "" {
		req.Host = rc.host
	}
	for k, v := range rc.header {
		req.Header.Set(k, v)
	}
	resp, err := c.HTTP.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

// The attack measured on the server before Guard: a page in the user's
// browser, at a name that it rebinds to 127.0.0.1, opens file:///etc/passwd
// with a "simple" request (no CORS preflight) and reads the tab. Now
// nothing opens and nothing is read, and each layer stops it on its own.
func TestAttackReplay(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 60*time.Second)
	victim := open(t, c, fx.URL+"/hello") // a tab the attacker would like to read too
	u, err := url.Parse(c.BaseURL)
	require.NoError(t, err)
	foreign := "attacker.example:" + u.Port()
	attack := map[string]string{"Origin": "http://" + foreign, "Content-Type": "text/plain"}
	before := targets(t)
	tabsBefore, err := c.Tabs(ctx)
	require.NoError(t, err)

	status, body := send(t, c, rawCall{method: http.MethodPost, path: "/browser/tabs", body: `{"url":"file:///etc/passwd"}`, host: foreign, header: attack})
	assert.Equal(t, http.StatusForbidden, status)
	assert.JSONEq(t, `{"error":"host \"`+foreign+`\" is not this server: call it as `+c.BaseURL+`"}`, body)

	// The page learns no tab ID, so it tries every one the browser has, and
	// the list that would tell it more.
	for _, id := range append(before, "") {
		status, body = send(t, c, rawCall{method: http.MethodGet, path: "/browser/dom?tab=" + id, host: foreign, header: map[string]string{"Origin": "http://" + foreign}})
		assert.Equal(t, http.StatusForbidden, status)
		assert.NotContains(t, body, "root:")
		assert.NotContains(t, body, "héllo")
	}
	status, body = send(t, c, rawCall{method: http.MethodGet, path: "/browser/tabs", host: foreign})
	assert.Equal(t, http.StatusForbidden, status)
	assert.NotContains(t, body, victim)

	// Each layer holds alone: a page on this machine (a dev server on
	// another port) names the server by its own Host but sends its Origin;
	// without an Origin, text/plain is refused; as JSON, the URL policy
	// refuses file:.
	layers := []struct {
		name   string
		rc     rawCall
		status int
		want   string
	}{
		{"foreign origin", rawCall{header: map[string]string{"Origin": "http://localhost:3000", "Content-Type": "text/plain"}},
			http.StatusForbidden, `origin \"http://localhost:3000\" may not call this server`},
		{"text/plain", rawCall{header: map[string]string{"Content-Type": "text/plain"}},
			http.StatusUnsupportedMediaType, `Content-Type \"text/plain\": send the body as application/json`},
		{"URL policy", rawCall{header: map[string]string{"Content-Type": "application/json"}},
			http.StatusForbidden, "URL not allowed: file:///etc/passwd: the file: scheme is not allowed: the server does not open it"},
	}
	for _, l := range layers {
		t.Run(l.name, func(t *testing.T) {
			l.rc.method, l.rc.path, l.rc.body = http.MethodPost, "/browser/tabs", `{"url":"file:///etc/passwd"}`
			status, body := send(t, c, l.rc)
			assert.Equal(t, l.status, status, body)
			assert.Contains(t, body, l.want)
			assert.NotContains(t, body, `"tab"`)
		})
	}

	assert.ElementsMatch(t, before, targets(t), "the browser has no new tab")
	tabsAfter, err := c.Tabs(ctx)
	require.NoError(t, err)
	assert.Equal(t, tabsBefore, tabsAfter, "GET /browser/tabs lists no new tab")
	for _, ti := range tabsAfter {
		assert.NotContains(t, ti.URL, "passwd")
	}
}

// The server's default policy, which main's flags default to as well:
// http and https only, never the cloud metadata hosts.
func TestURLPolicy(t *testing.T) {
	fx := fixtures(t)
	_, c := setup(t, 5*time.Second)
	ctx := testbrowser.Context(t, 60*time.Second)
	before := targets(t)
	tests := []struct{ url, want string }{
		{"file:///etc/passwd", "URL not allowed: file:///etc/passwd: the file: scheme is not allowed: the server does not open it (see -allow-schemes, -allowed-origins, -blocked-origins)"},
		{"FILE:///etc/passwd", "the file: scheme is not allowed"},
		{"chrome://settings", "URL not allowed: chrome://settings: the chrome: scheme is not allowed"},
		{"javascript:alert(1)", "URL not allowed: javascript:alert(1): the javascript: scheme is not allowed"},
		{"data:text/html,<p>x", "the data: scheme is not allowed"},
		{"http://169.254.169.254/latest/meta-data/", "URL not allowed: http://169.254.169.254/latest/meta-data/: its origin http://169.254.169.254 is blocked"},
		{"http://metadata.google.internal/computeMetadata/v1/", "is blocked"},
	}
	for _, tt := range tests {
		id, err := c.Open(ctx, tt.url)
		requireAPIError(t, err, http.StatusForbidden, tt.want)
		assert.Empty(t, id, "nothing opens")
	}
	assert.ElementsMatch(t, before, targets(t), "the browser has no new tab")

	id := open(t, c, fx.URL+"/hello")
	for _, tt := range tests {
		_, err := c.Navigate(ctx, id, tt.url)
		requireAPIError(t, err, http.StatusForbidden, tt.want)
	}
	ti, _ := listed(t, c, id)
	assert.Equal(t, fx.URL+"/hello", ti.URL, "nothing was loaded")
}

// The flags widen or narrow the policy, as in examples/mcpserver.
func TestURLPolicyFlags(t *testing.T) {
	fx := fixtures(t)
	ctx := testbrowser.Context(t, 60*time.Second)
	blocked := strings.Join(defaultBlocked, ";") // the -blocked-origins default
	server := func(cfg config) *Client {
		_, c := serve(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: cfg.policy()}, 10*time.Second, "")
		return c
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "note.html")
	require.NoError(t, os.WriteFile(file, []byte("<p>local note</p>"), 0o600))
	c := server(config{schemes: "file, data", blocked: blocked})
	id := open(t, c, "file://"+file)
	d, err := c.DOM(ctx, id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "local note")
	open(t, c, "data:text/html,<p>inline</p>")
	_, err = c.Open(ctx, "chrome://settings")
	requireAPIError(t, err, http.StatusForbidden, "the chrome: scheme is not allowed")
	_, err = c.Open(ctx, "http://169.254.169.254/")
	requireAPIError(t, err, http.StatusForbidden, "is blocked")

	u, err := url.Parse(fx.URL)
	require.NoError(t, err)
	c = server(config{allowed: "127.0.0.1", blocked: blocked})
	open(t, c, fx.URL+"/hello")
	_, err = c.Open(ctx, "http://localhost:"+u.Port()+"/hello")
	requireAPIError(t, err, http.StatusForbidden, "URL not allowed: http://localhost:"+u.Port()+"/hello: its origin http://localhost:"+u.Port()+" is not among the allowed ones")

	c = server(config{blocked: fx.URL})
	_, err = c.Open(ctx, fx.URL+"/hello")
	requireAPIError(t, err, http.StatusForbidden, "is blocked")
}

// Chrome loads 127.0.0.1 for each of these hosts, and the policy reads them
// as Chrome does: a blocked address stays blocked however it is written.
func TestURLPolicyHostForms(t *testing.T) {
	fx := fixtures(t)
	u, err := url.Parse(fx.URL)
	require.NoError(t, err)
	_, c := serve(t, &tabguard.Options{EvalTimeout: 5 * time.Second, URLs: config{blocked: "127.0.0.1"}.policy()}, 10*time.Second, "")
	ctx := testbrowser.Context(t, 60*time.Second)
	before := targets(t)
	id := open(t, c, "http://localhost:"+u.Port()+"/hello") // a name is the caller's to block
	for _, h := range []string{"127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "127.0.0.1.", "[::ffff:127.0.0.1]"} {
		_, err := c.Open(ctx, "http://"+h+":"+u.Port()+"/hello")
		requireAPIError(t, err, http.StatusForbidden, "URL not allowed: http://"+h+":"+u.Port()+"/hello: ")
		_, err = c.Navigate(ctx, id, "http://"+h+":"+u.Port()+"/hello")
		requireAPIError(t, err, http.StatusForbidden, "URL not allowed: ")
	}
	_, err = c.Open(ctx, "http:"+u.Host+"/hello")
	requireAPIError(t, err, http.StatusForbidden, "its origin http://127.0.0.1:"+u.Port()+" is blocked")
	assert.ElementsMatch(t, append(before, id), targets(t), "nothing else opens")
}

func TestToken(t *testing.T) {
	fx := fixtures(t)
	_, c := serve(t, &tabguard.Options{EvalTimeout: 5 * time.Second}, 10*time.Second, "s3cret")
	ctx := testbrowser.Context(t, 30*time.Second)
	before := targets(t)

	anon := NewClient(c.BaseURL)
	_, err := anon.Open(ctx, fx.URL+"/hello")
	requireAPIError(t, err, http.StatusUnauthorized, "missing or wrong bearer token")
	_, err = anon.Tabs(ctx)
	requireAPIError(t, err, http.StatusUnauthorized, "missing or wrong bearer token")
	anon.Token = "s3cre"
	_, err = anon.Tabs(ctx)
	requireAPIError(t, err, http.StatusUnauthorized, "missing or wrong bearer token")
	assert.ElementsMatch(t, before, targets(t), "nothing opens")

	id := open(t, c, fx.URL+"/hello") // c carries the token
	d, err := c.DOM(ctx, id, 0)
	require.NoError(t, err)
	assert.Contains(t, d.HTML, "héllo")
}
