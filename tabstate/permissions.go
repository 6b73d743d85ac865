package tabstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// ErrLocalNetworkDenied reports that a script's request to a local address
// (the machine itself, or the local network) from a page of another address
// space was denied: the browser's local network access permission
// (loopback-network or local-network) is not granted to the page's origin.
// The script saw a network error ("TypeError: Failed to fetch"); Detail
// names the permission and the host it was denied for.
var ErrLocalNetworkDenied = errors.New("local network request denied")

// PermissionGrant grants browser permissions to one origin, where every
// prompting permission is otherwise denied.
type PermissionGrant struct {
	// Origin is scheme://host[:port], such as "https://example.com" or
	// "http://127.0.0.1:8080", with no path.
	Origin string
	// Permissions are the names granted, from [PromptingPermissions],
	// such as "geolocation" or "loopback-network".
	Permissions []string
}

// PromptingPermissions lists the permissions a browser asks its user about
// (Chrome's names, as Browser.setPermission takes them): every one is
// denied for every origin as a watched browser starts, so no page waits on
// a permission bubble, unless a [PermissionGrant] grants it to an origin.
// loopback-network and local-network (with local-network-access, Chrome's
// older name for both) are local network access: requests from a public
// page to this machine, or from either to the local network.
func PromptingPermissions() []string {
	return []string{
		"notifications", "geolocation", "camera", "microphone", "clipboard-read", "midi",
		"idle-detection", "window-management", "local-fonts", "storage-access",
		"speaker-selection", "captured-surface-control",
		"loopback-network", "local-network", "local-network-access",
	}
}

// CheckPermissionGrants reports the first grant that cannot be set: an
// origin that is not scheme://host[:port] or a name not in
// [PromptingPermissions], as an [ErrInvalidArgument].
func CheckPermissionGrants(grants []PermissionGrant) error {
	known := PromptingPermissions()
	for i, g := range grants {
		if err := checkOrigin(g.Origin); err != nil {
			return fmt.Errorf("%w: Permissions[%d]: %w", ErrInvalidArgument, i, err)
		}
		if len(g.Permissions) == 0 {
			return fmt.Errorf("%w: Permissions[%d]: no permission named for %s: name one of %s", ErrInvalidArgument, i, g.Origin, strings.Join(known, ", "))
		}
		for _, name := range g.Permissions {
			if !slices.Contains(known, name) {
				return fmt.Errorf("%w: Permissions[%d]: unknown permission %q: name one of %s", ErrInvalidArgument, i, name, strings.Join(known, ", "))
			}
		}
	}
	return nil
}

// checkOrigin reports why origin is not scheme://host[:port].
func checkOrigin(origin string) error {
	const want = "pass scheme://host[:port], such as https://example.com"
	if origin == "" {
		return errors.New("empty origin: " + want)
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Hostname() == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.HasSuffix(origin, "?") || strings.HasSuffix(origin, "#") {
		return fmt.Errorf("origin %q is not an origin: %s", origin, want)
	}
	return nil
}

// LocalNetworkPermission is the permission a request to rawURL needs when
// its page is of a more public address space: loopback-network for this
// machine (127.0.0.0/8, ::1, localhost and its subdomains), local-network
// for any other host. A host name is read as written, not resolved.
func LocalNetworkPermission(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "local-network"
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "loopback-network"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return "loopback-network"
	}
	return "local-network"
}

// LocalNetworkDenied is the refusal of a script whose request to rawURL
// was denied local network access. An empty rawURL (no event named the
// request) gives a refusal that names neither host nor permission.
func LocalNetworkDenied(rawURL string) *BlockedError {
	if rawURL == "" {
		return &BlockedError{Reason: ErrLocalNetworkDenied}
	}
	host := rawURL
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return &BlockedError{Reason: ErrLocalNetworkDenied, URL: rawURL, Detail: LocalNetworkPermission(rawURL) + " for " + host}
}

// localNetworkAdvice is the remedy of an ErrLocalNetworkDenied with detail.
func localNetworkAdvice(detail string) string {
	perm, _, _ := strings.Cut(detail, " ")
	if perm == "" {
		perm = "loopback-network or local-network"
	}
	return "grant " + perm + " to the page's origin in Options.Permissions before the page asks, and the tab still answers"
}

// CORSIssue is Audits.issueAdded for a CORS issue (sent while the Audits
// domain is enabled, and for the page's issues so far as it is enabled):
// the request RequestID, to URL, failed with Chrome's CORSError, such as
// "LocalNetworkAccessPermissionDenied".
type CORSIssue struct{ RequestID, URL, CORSError string }

func (CORSIssue) isEvent() {}

// CORSLocalNetworkDenied is the CORS error of a request denied local
// network access.
const CORSLocalNetworkDenied = "LocalNetworkAccessPermissionDenied"

// decodeIssue decodes Audits.issueAdded: a CORS issue, or nothing.
func decodeIssue(params []byte) (Event, bool) {
	var p struct {
		Issue struct {
			Code    string
			Details struct {
				CORSIssueDetails struct {
					CORSErrorStatus struct{ CORSError string }
					Request         struct{ RequestID, URL string }
				}
			}
		}
	}
	if json.Unmarshal(params, &p) != nil || p.Issue.Code != "CorsIssue" {
		return nil, false
	}
	d := p.Issue.Details.CORSIssueDetails
	return CORSIssue{RequestID: d.Request.RequestID, URL: d.Request.URL, CORSError: d.CORSErrorStatus.CORSError}, true
}
