package tabstate_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

// TestDecodeCORSIssue decodes Audits.issueAdded as Chromium 156 sent it
// for a request denied local network access; other issues are no event.
func TestDecodeCORSIssue(t *testing.T) {
	const cors = `{"issue":{"code":"CorsIssue","details":{"corsIssueDetails":{"corsErrorStatus":{"corsError":"LocalNetworkAccessPermissionDenied","failedParameter":""},"isWarning":false,"request":{"requestId":"2060.5","url":"http://127.0.0.1:36027/data"},"initiatorOrigin":"http://127.0.0.1:35579/","clientSecurityState":{"initiatorIsSecureContext":true,"initiatorIPAddressSpace":"Public","privateNetworkRequestPolicy":""}}},"issueId":"85"}}`
	got, ok := tabstate.Decode("Audits.issueAdded", []byte(cors))
	if !ok {
		t.Fatal("Audits.issueAdded: not decoded")
	}
	want := tabstate.CORSIssue{RequestID: "2060.5", URL: "http://127.0.0.1:36027/data", CORSError: tabstate.CORSLocalNetworkDenied}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Decode() mismatch (-want +got):\n%s", d)
	}
	const quirks = `{"issue":{"code":"QuirksModeIssue","details":{"quirksModeIssueDetails":{"isLimitedQuirksMode":false,"url":"http://127.0.0.1:1/"}}}}`
	if ev, ok := tabstate.Decode("Audits.issueAdded", []byte(quirks)); ok {
		t.Errorf("a quirks-mode issue decoded as %#v", ev)
	}
}

func TestCheckPermissionGrants(t *testing.T) {
	tests := []struct {
		name   string
		grants []tabstate.PermissionGrant
		ok     bool
	}{
		{"none", nil, true},
		{"origin with port", []tabstate.PermissionGrant{{Origin: "http://127.0.0.1:8080", Permissions: []string{"loopback-network", "geolocation"}}}, true},
		{"https origin", []tabstate.PermissionGrant{{Origin: "https://example.com", Permissions: []string{"notifications"}}}, true},
		{"empty origin", []tabstate.PermissionGrant{{Permissions: []string{"notifications"}}}, false},
		{"host alone", []tabstate.PermissionGrant{{Origin: "example.com", Permissions: []string{"notifications"}}}, false},
		{"a path", []tabstate.PermissionGrant{{Origin: "https://example.com/", Permissions: []string{"notifications"}}}, false},
		{"a query", []tabstate.PermissionGrant{{Origin: "https://example.com?a", Permissions: []string{"notifications"}}}, false},
		{"a user", []tabstate.PermissionGrant{{Origin: "https://u@example.com", Permissions: []string{"notifications"}}}, false},
		{"unknown name", []tabstate.PermissionGrant{{Origin: "https://example.com", Permissions: []string{"automatic-downloads"}}}, false},
		{"no name", []tabstate.PermissionGrant{{Origin: "https://example.com"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tabstate.CheckPermissionGrants(tt.grants)
			if (err == nil) != tt.ok || err != nil && !errors.Is(err, tabstate.ErrInvalidArgument) {
				t.Errorf("CheckPermissionGrants() = %v; want ok %v", err, tt.ok)
			}
		})
	}
}

func TestLocalNetworkDenied(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://127.0.0.1:9000/data", "local network request denied: loopback-network for 127.0.0.1:9000: grant loopback-network to the page's origin in Options.Permissions before the page asks, and the tab still answers"},
		{"http://[::1]:9000/", "local network request denied: loopback-network for [::1]:9000: grant loopback-network to the page's origin in Options.Permissions before the page asks, and the tab still answers"},
		{"http://app.localhost/", "local network request denied: loopback-network for app.localhost: grant loopback-network to the page's origin in Options.Permissions before the page asks, and the tab still answers"},
		{"http://192.168.1.20/api", "local network request denied: local-network for 192.168.1.20: grant local-network to the page's origin in Options.Permissions before the page asks, and the tab still answers"},
		{"", "local network request denied: grant loopback-network or local-network to the page's origin in Options.Permissions before the page asks, and the tab still answers"},
	}
	for _, tt := range tests {
		err := tabstate.LocalNetworkDenied(tt.url)
		if got := err.Error(); got != tt.want {
			t.Errorf("LocalNetworkDenied(%q) = %q; want %q", tt.url, got, tt.want)
		}
		if !errors.Is(err, tabstate.ErrLocalNetworkDenied) {
			t.Errorf("LocalNetworkDenied(%q) is no ErrLocalNetworkDenied", tt.url)
		}
	}
}
