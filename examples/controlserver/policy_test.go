package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard"
)

// TestDefaultPolicyRefusesRewrittenHosts checks the -blocked-origins
// default against the forms in which Chrome loads 169.254.169.254 and the
// metadata name: the library's URLPolicy reads a host as Chrome does.
func TestDefaultPolicyRefusesRewrittenHosts(t *testing.T) {
	policy := config{blocked: strings.Join(defaultBlocked, ";")}.policy()
	for _, u := range []string{
		"http://169.254.169.254/latest",
		"http://2852039166/",
		"http://0xA9FEA9FE/",
		"http://0251.0376.0251.0376/",
		"http://169.254.43518/",
		"http://169.254.169.254./",
		"http://metadata.google.internal./",
		"http://[::ffff:169.254.169.254]/",
		"http://[::ffff:a9fe:a9fe]/",
		"http:169.254.169.254",
		"http:/169.254.169.254/",
		"http:///169.254.169.254/",
		`http:\\169.254.169.254\`,
		"http://１６９.２５４.１６９.２５４/",
		"http://metadata.google.internal。/",
		"file:///etc/passwd",
	} {
		assert.ErrorIs(t, policy.Check(u), tabguard.ErrURLBlocked, u)
	}
	for _, u := range []string{"https://example.com:8443/a?b=c", "http://[::1]:8080/", "http://127.0.0.1:8080/", "http://1.example/"} {
		assert.NoError(t, policy.Check(u), u)
	}
	// A backslash ends the host, as a slash does: Chrome loads example.com.
	assert.NoError(t, policy.Check(`http://example.com\@169.254.169.254/`))
}
