package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// hostOf is the host and port of srv, as the prompt errors name it.
func hostOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return u.Host
}

// A page behind a sign-in or an untrusted certificate is refused at once,
// saying which, for which host, and that only another page helps: the
// server has no credentials or certificates to give. After navigate, the
// tab answers again.
func TestPromptsNameTheTool(t *testing.T) {
	cs := connect(t)
	home := pages(t)
	signIn := httptest.NewServer(http.HandlerFunc(faultrows.SignIn))
	t.Cleanup(signIn.Close)
	tls := faultrows.TLSServer(t, false)
	signInURL, _ := url.Parse(signIn.URL + faultrows.SignInPath)
	signInURL.User = url.UserPassword("agent", "hunter2") // credentials in the URL: the browser tries them, the server refuses them

	tests := []struct{ name, url, want string }{
		{"sign-in required", signIn.URL + faultrows.SignInPath, "sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for " + hostOf(t, signIn) +
			": the page needs credentials the server does not have: call navigate for another page"},
		{"sign-in refused", signInURL.String(), "sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for " + hostOf(t, signIn) +
			": the page needs credentials the server does not have: call navigate for another page"},
		{"untrusted certificate", tls.URL, "certificate error: net::ERR_CERT_AUTHORITY_INVALID for " + hostOf(t, tls) +
			": the server cannot accept a certificate the browser refuses: call navigate for another page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := openTab(t, cs, home.URL)
			msg := fails(t, cs, "navigate", map[string]any{"tab": tab, "url": tt.url})
			assert.Equal(t, tt.want, msg)
			assert.NotContains(t, msg, "Watcher.", "a model has tools, not Go calls")
			assert.NotContains(t, msg, "hunter2")
			assert.Equal(t, tt.want, fails(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}), "the next call is refused alike")
			ti, _ := listed(t, cs, tab)
			assert.Equal(t, tt.want, ti.Problem, "list_tabs says it too, asking no page")
			assert.NotContains(t, ti.URL+ti.Title, "hunter2")

			ok(t, cs, "navigate", map[string]any{"tab": tab, "url": home.URL}, nil)
			var v EvalInTabOutput
			ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => document.title"}, &v)
			assert.Equal(t, "ok", v.Value)
			ok(t, cs, "close_tab", map[string]any{"tab": tab}, nil)
		})
	}

	// open_tab says the same, naming the tab it opened.
	msg := fails(t, cs, "open_tab", map[string]any{"url": tls.URL})
	assert.Regexp(t, `^tab \S+: certificate error: net::ERR_CERT_AUTHORITY_INVALID for `, msg)
	assert.Contains(t, msg, ": call navigate for another page")
}

// The URL policy comes first: a place it refuses is never loaded, so no
// prompt is met.
func TestPromptsURLPolicy(t *testing.T) {
	home := pages(t)
	tls := faultrows.TLSServer(t, false)
	cs := connectWith(t, &tabguard.Options{EvalTimeout: 5 * time.Second,
		URLs: config{allowed: home.URL, blocked: defaultBlocked}.policy()}, nil)
	tab := openTab(t, cs, home.URL)
	msg := fails(t, cs, "navigate", map[string]any{"tab": tab, "url": tls.URL})
	assert.Contains(t, msg, "URL not allowed: "+tls.URL)
	assert.Contains(t, msg, "the server does not open it")
	assert.NotContains(t, msg, "certificate")
	ok(t, cs, "eval_in_tab", map[string]any{"tab": tab, "js": "() => 1"}, nil)
}
