package main

import (
	"errors"
	"testing"

	"github.com/tabguard/tabguard"
)

func TestCheckHost(t *testing.T) {
	tests := []struct {
		url  string
		want string // "" when allowed
	}{
		{"http://169.254.169.254/latest", ""},
		{"https://example.com:8443/a?b=c", ""},
		{"http://[::1]:8080/", ""},
		{"http://127.0.0.1:8080/", ""},
		{"http://1.example/", ""},
		{"http://example.0x/", "write its IP address as a.b.c.d in decimal"},
		{"file:///etc/passwd", ""}, // the policy's business
		{"http://2852039166/", "write its IP address as a.b.c.d in decimal"},
		{"http://0xA9FEA9FE/", "write its IP address as a.b.c.d in decimal"},
		{"http://0251.0376.0251.0376/", "write its IP address as a.b.c.d in decimal"},
		{"http://169.254.43518/", "write its IP address as a.b.c.d in decimal"},
		{"http://127.1/", "write its IP address as a.b.c.d in decimal"},
		{"http://169.254.169.254./", "write its host without the trailing dot"},
		{"http://metadata.google.internal./", "write its host without the trailing dot"},
		{"http://[::ffff:169.254.169.254]/", "write an IPv4 address as a.b.c.d, not inside IPv6"},
		{"http://[::ffff:a9fe:a9fe]/", "write an IPv4 address as a.b.c.d, not inside IPv6"},
		{"http:169.254.169.254", "write it as http://host/path"},
		{"http:/169.254.169.254/", "write it as http://host/path"},
		{"http:///169.254.169.254/", "write it as http://host/path"},
		{`http:\\169.254.169.254\`, "write it as http://host/path"},
		{`http://example.com\@169.254.169.254/`, ""}, // Go cannot parse it, so the policy refuses it
		{"http://１６９.２５４.１６９.２５４/", "write its host in ASCII (punycode)"},
		{"http://metadata.google.internal。/", "write its host in ASCII (punycode)"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := checkHost(tt.url)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("checkHost(%q) = %v; want nil", tt.url, err)
			case tt.want != "" && (err == nil || err.Error() != "URL not allowed: "+tt.url+": "+tt.want):
				t.Errorf("checkHost(%q) = %v; want %q", tt.url, err, tt.want)
			case err != nil && !errors.Is(err, tabguard.ErrURLBlocked):
				t.Errorf("checkHost(%q) does not match ErrURLBlocked", tt.url)
			}
		})
	}
}
