package tabstate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/tabstate"
)

func TestCheckInsecureHosts(t *testing.T) {
	assert.NoError(t, tabstate.CheckInsecureHosts([]string{"intranet.example", "127.0.0.1:8443", "[::1]:9000", "::1"}))
	for _, bad := range []string{"", "*.example", "https://intranet.example", "intranet.example/x", "127.0.0.1:", "user@host", ".example"} {
		assert.ErrorIs(t, tabstate.CheckInsecureHosts([]string{bad}), tabstate.ErrInvalidArgument, bad)
	}
}

func TestInsecureHost(t *testing.T) {
	hosts := []string{"Intranet.example", "127.0.0.1:8443", "[::1]:9000"}
	for url, want := range map[string]bool{
		"https://intranet.example/a":     true,
		"https://intranet.example:444/a": true,
		"https://other.example/":         false,
		"https://sub.intranet.example/":  false,
		"https://127.0.0.1:8443/x":       true,
		"https://127.0.0.1:8444/x":       false,
		"https://127.0.0.1/x":            false,
		"https://[::1]:9000/":            true,
		"https://[::1]:9001/":            false,
		"not a url":                      false,
	} {
		assert.Equal(t, want, tabstate.InsecureHost(hosts, url), url)
	}
}
