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
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// hostOf is the host and port of srv, as the prompt errors name it.
func hostOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return u.Host
}

// A page behind a sign-in or an untrusted certificate gets a 500 at once
// that says which, for which host, and that only another page helps: the
// server has no credentials or certificates to give. After
// POST /browser/navigate, the tab answers again. Neither the server's
// token nor credentials in the URL appear in an answer.
func TestPromptsNameTheEndpoint(t *testing.T) {
	fx := fixtures(t)
	const token = "s3cret-token"
	_, c := serve(t, &tabguard.Options{EvalTimeout: 5 * time.Second}, 10*time.Second, token)
	ctx := testbrowser.Context(t, 60*time.Second)
	signIn := httptest.NewServer(http.HandlerFunc(faultrows.SignIn))
	t.Cleanup(signIn.Close)
	tls := faultrows.TLSServer(t, false)
	withPassword, err := url.Parse(signIn.URL + faultrows.SignInPath)
	require.NoError(t, err)
	withPassword.User = url.UserPassword("agent", "hunter2") // the browser tries them, the server refuses them

	signInWant := "sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for " + hostOf(t, signIn) +
		": the page needs credentials the server does not have: POST /browser/navigate to another page"
	tests := []struct{ name, url, want string }{
		{"sign-in required", signIn.URL + faultrows.SignInPath, signInWant},
		{"sign-in refused", withPassword.String(), signInWant},
		{"untrusted certificate", tls.URL, "certificate error: net::ERR_CERT_AUTHORITY_INVALID for " + hostOf(t, tls) +
			": the server cannot accept a certificate the browser refuses: POST /browser/navigate to another page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := open(t, c, fx.URL+"/hello")
			_, err := c.Navigate(ctx, id, tt.url)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusInternalServerError, ae.Status, "as for any page that did not load")
			assert.Equal(t, tt.want, ae.Message)
			_, err = c.DOM(ctx, id, 0)
			requireAPIError(t, err, http.StatusInternalServerError, tt.want)
			ti, _ := listed(t, c, id)
			assert.Equal(t, tt.want, ti.Problem, "GET /browser/tabs says it too, asking no page")
			for _, secret := range []string{token, "hunter2", "Basic realm"} {
				assert.NotContains(t, ae.Message+ti.Problem+ti.URL+ti.Title, secret)
			}

			_, err = c.Navigate(ctx, id, fx.URL+"/hello")
			require.NoError(t, err)
			d, err := c.DOM(ctx, id, 0)
			require.NoError(t, err, "the call right after POST /browser/navigate")
			assert.Contains(t, d.HTML, "<p>héllo</p>")
			require.NoError(t, c.CloseTab(ctx, id))
		})
	}

	// POST /browser/tabs says the same, after the URL that did not load.
	id, err := c.Open(ctx, withPassword.String())
	require.NotEmpty(t, id, "a failed open still names its tab")
	requireAPIError(t, err, http.StatusInternalServerError, signInWant)
	assert.Contains(t, err.Error(), "load http://agent:xxxxx@"+hostOf(t, signIn)+faultrows.SignInPath+": ", "the password is masked")
	assert.NotContains(t, err.Error(), "hunter2")
}

// The URL policy comes first: a place it refuses is never loaded, so no
// prompt is met.
func TestPromptsURLPolicy(t *testing.T) {
	fx := fixtures(t)
	tls := faultrows.TLSServer(t, false)
	_, c := serveConfig(t, &ServerConfig{Watch: &tabguard.Options{EvalTimeout: 5 * time.Second,
		URLs: &tabguard.URLPolicy{AllowedOrigins: []string{fx.URL}}}, LoadTimeout: 10 * time.Second}, "")
	ctx := testbrowser.Context(t, 30*time.Second)
	id := open(t, c, fx.URL+"/hello")
	_, err := c.Navigate(ctx, id, tls.URL)
	requireAPIError(t, err, http.StatusForbidden, "URL not allowed: "+tls.URL)
	assert.NotContains(t, err.Error(), "certificate")
	_, err = c.DOM(ctx, id, 0)
	require.NoError(t, err)
}
