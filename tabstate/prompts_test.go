package tabstate_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/tabstate"
)

func TestLoadFailure(t *testing.T) {
	for _, tc := range []struct {
		errorText string
		want      error
		msg       string
	}{
		{"net::ERR_INVALID_AUTH_CREDENTIALS", tabstate.ErrSignInRequired, "sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for 127.0.0.1:8443: the page needs credentials"},
		{"net::ERR_CERT_AUTHORITY_INVALID", tabstate.ErrCertificate, "certificate error: net::ERR_CERT_AUTHORITY_INVALID for 127.0.0.1:8443: the browser does not trust"},
		{"net::ERR_CERT_DATE_INVALID", tabstate.ErrCertificate, "certificate error: net::ERR_CERT_DATE_INVALID for 127.0.0.1:8443"},
		{"net::ERR_BAD_SSL_CLIENT_AUTH_CERT", tabstate.ErrClientCertificate, "client certificate requested: net::ERR_BAD_SSL_CLIENT_AUTH_CERT for 127.0.0.1:8443"},
		{"net::ERR_CONNECTION_REFUSED", tabstate.ErrNoDocument, "tab has no document: net::ERR_CONNECTION_REFUSED loading https://127.0.0.1:8443/a"},
	} {
		err := tabstate.Blocked(tabstate.State{URL: "https://127.0.0.1:8443/a", LoadError: tc.errorText})
		assert.ErrorIs(t, err, tc.want, tc.errorText)
		assert.ErrorIs(t, err, tabstate.ErrNoDocument, "%s is a load that failed too", tc.errorText)
		assert.Contains(t, err.Error(), tc.msg)
		if tc.want != tabstate.ErrNoDocument {
			assert.False(t, errors.Is(err, tabstate.ErrCertificate) && tc.want != tabstate.ErrCertificate)
		}
	}
	a := &tabstate.Advice{Refused: map[error]string{tabstate.ErrNoDocument: "call navigate"}}
	be := a.Refusal(tabstate.LoadFailure("https://127.0.0.1:8443/", "net::ERR_CERT_AUTHORITY_INVALID"))
	assert.Equal(t, "call navigate", be.Remedy, "a prompt's reason the table leaves out takes ErrNoDocument's remedy")
}

func TestShownURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://agent:hunter2@127.0.0.1:1/a?b=c": "http://agent:xxxxx@127.0.0.1:1/a?b=c",
		"https://agent@127.0.0.1/":               "https://agent@127.0.0.1/",
		"http://127.0.0.1/a@b":                   "http://127.0.0.1/a@b",
		"about:blank":                            "about:blank",
		"http://a:b:c@h/":                        "http://a:xxxxx@h/",
	} {
		assert.Equal(t, want, tabstate.ShownURL(raw), raw)
	}
	err := tabstate.Blocked(tabstate.State{URL: "http://agent:hunter2@127.0.0.1:1/", LoadError: "net::ERR_CONNECTION_REFUSED"})
	assert.NotContains(t, err.Error(), "hunter2")
}

func TestSignInRefused(t *testing.T) {
	s := tabstate.SignIn{Origin: "http://127.0.0.1:8080", Realm: "staff", Scheme: "basic"}
	err := tabstate.SignInRefused("http://127.0.0.1:8080/a", s, false)
	assert.ErrorIs(t, err, tabstate.ErrSignInRequired)
	assert.ErrorIs(t, err, tabstate.ErrNoDocument)
	assert.Equal(t, `sign-in required: http://127.0.0.1:8080 (realm "staff"): the page needs credentials: give them with Options.Credentials, or navigate to another page (Watcher.Navigate)`, err.Error())

	s.Proxy = true
	err = tabstate.SignInRefused("http://127.0.0.1:8080/a", s, true)
	assert.ErrorIs(t, err, tabstate.ErrCredentialsRefused)
	assert.ErrorIs(t, err, tabstate.ErrNoDocument)
	assert.NotErrorIs(t, err, tabstate.ErrSignInRequired)
	assert.Contains(t, err.Error(), `credentials refused: proxy http://127.0.0.1:8080 (realm "staff")`)
}
