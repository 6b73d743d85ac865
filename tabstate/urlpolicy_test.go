package tabstate_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/tabstate"
)

// TestURLPolicyReadsTheHostAsTheBrowserDoes holds Check to the forms of
// 127.0.0.1 and 169.254.169.254 that Chromium 156 loads as those addresses.
// TestURLPolicyAgreesWithChrome, in the root package, asks a real browser.
func TestURLPolicyReadsTheHostAsTheBrowserDoes(t *testing.T) {
	t.Parallel()
	loopback := tabstate.URLPolicy{BlockedOrigins: []string{"127.0.0.1"}}
	metadata := tabstate.URLPolicy{BlockedOrigins: []string{"169.254.169.254"}}
	for _, u := range []string{
		"http://127.0.0.1:8080/",
		"http://2130706433:8080/",
		"http://0x7f000001/",
		"http://0X7F.0.0.1/",
		"http://0177.0.0.1/",
		"http://127.1/",
		"http://127.0.1/",
		"http://127.0.0.1./",
		"http://[::ffff:127.0.0.1]/",
		"http://[::ffff:7f00:1]:8080/",
		"http:127.0.0.1:8080/",
		`http:\\127.0.0.1\`,
		"http:///127.0.0.1/",
		"http://user:pass@127.0.0.1/",
		"http://%31%32%37.0.0.1/",
		"HTTP://127.0.0.1/",
		" http://127.0.0.1/ ",
		"http://127.0.\t0.1/",
	} {
		assert.ErrorIs(t, loopback.Check(u), tabstate.ErrURLBlocked, u)
	}
	for _, u := range []string{"http://2852039166/", "http://0xA9FEA9FE/", "http://169.254.169.254./", "http://[::ffff:a9fe:a9fe]/", "http://0251.0376.0251.0376/"} {
		assert.ErrorIs(t, metadata.Check(u), tabstate.ErrURLBlocked, u)
	}
	for _, u := range []string{"http://127.0.0.2/", "http://127.0.0.1.example/", "http://localhost/", "http://[::1]/"} {
		assert.NoError(t, loopback.Check(u), u)
	}
}

func TestURLPolicyRefusesWhatTheBrowserCannotLoad(t *testing.T) {
	t.Parallel()
	var p tabstate.URLPolicy
	for _, u := range []string{"http://256.0.0.1/", "http://1.2.3.4.5/", "http://[::1/", "http://a b/", "http://h:99999/", "http:", "//127.0.0.1/", "no scheme"} {
		assert.ErrorIs(t, p.Check(u), tabstate.ErrURLBlocked, u)
	}
}

func TestURLPolicyOrigins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy tabstate.URLPolicy
		url    string
		ok     bool
	}{
		{"default port written", tabstate.URLPolicy{BlockedOrigins: []string{"http://example.com"}}, "http://example.com:80/", false},
		{"default port in the rule", tabstate.URLPolicy{BlockedOrigins: []string{"https://example.com:443/"}}, "https://example.com/", false},
		{"port with zeros", tabstate.URLPolicy{BlockedOrigins: []string{"http://127.0.0.1:8080"}}, "http://127.0.0.1:08080/", false},
		{"other port", tabstate.URLPolicy{BlockedOrigins: []string{"http://127.0.0.1:8080"}}, "http://127.0.0.1:8081/", true},
		{"rule in another form", tabstate.URLPolicy{BlockedOrigins: []string{"http://2130706433:8080"}}, "http://127.0.0.1:8080/", false},
		{"trailing dot on a name", tabstate.URLPolicy{BlockedOrigins: []string{"example.com"}}, "http://example.com./", false},
		{"subdomain with a dot", tabstate.URLPolicy{BlockedOrigins: []string{"*.example.com"}}, "http://a.example.com./", false},
		{"look-alike domain", tabstate.URLPolicy{AllowedOrigins: []string{"*.example.com"}}, "http://evilexample.com/", false},
		{"IPv6 rule", tabstate.URLPolicy{BlockedOrigins: []string{"::1"}}, "http://[0:0::1]:8080/", false},
		{"IPv6 rule in brackets", tabstate.URLPolicy{BlockedOrigins: []string{"[::1]"}}, "http://[::1]/", false},
		{"non-ASCII host under rules", tabstate.URLPolicy{BlockedOrigins: []string{"127.0.0.1"}}, "http://１２７.０.０.１/", false},
		{"non-ASCII host, no rules", tabstate.URLPolicy{}, "http://bücher.example/", true},
		{"allowed in another form", tabstate.URLPolicy{AllowedOrigins: []string{"127.0.0.1"}}, "http://0x7f.1/", true},
	}
	for _, tt := range tests {
		err := tt.policy.Check(tt.url)
		if tt.ok {
			assert.NoError(t, err, tt.name)
		} else {
			assert.ErrorIs(t, err, tabstate.ErrURLBlocked, tt.name)
		}
	}
	err := (&tabstate.URLPolicy{BlockedOrigins: []string{"127.0.0.1"}}).Check("http://0x7f000001:80/x")
	assert.EqualError(t, err, "URL not allowed: http://0x7f000001:80/x: its origin http://127.0.0.1 is blocked")
}

func TestURLPolicyCheckFrame(t *testing.T) {
	p := &tabstate.URLPolicy{BlockedOrigins: []string{"http://169.254.169.254"}}
	frames := []tabstate.FrameInfo{
		{ID: "ok", ParentID: "T", URL: "http://127.0.0.1:1/inner"},
		{ID: "meta", ParentID: "T", URL: "http://169.254.169.254/latest"},
		{ID: "blank", ParentID: "meta", URL: "about:blank"},
		{ID: "srcdoc", ParentID: "ok", URL: "about:srcdoc"},
		{ID: "loading", ParentID: "meta"},
	}
	for id, blocked := range map[string]bool{"ok": false, "meta": true, "blank": true, "srcdoc": false, "loading": true, "gone": false, "T": false} {
		err := p.CheckFrame(frames, id)
		if blocked != errors.Is(err, tabstate.ErrURLBlocked) || !blocked && err != nil {
			t.Errorf("CheckFrame(%q) = %v; want blocked %v", id, err, blocked)
		}
	}
}
