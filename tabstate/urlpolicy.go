package tabstate

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// URLPolicy says which URLs a watcher's Navigate and Open may load. A program that opens URLs it is handed, such as an agent's
// browser server, needs one: page text can steer an agent into opening
// file:///etc/passwd or a cloud metadata address. The zero value allows
// http and https URLs, and about:blank, and nothing else.
//
// It governs only the navigations these calls start: the page's own links
// and redirects are the browser's business (Chrome refuses a redirect from
// http to file: itself).
type URLPolicy struct {
	// Schemes are the schemes allowed besides http and https, such as
	// "file", "data", "chrome" or "javascript".
	Schemes []string
	// AllowedOrigins, when not empty, are the only places that may be
	// loaded: an origin ("https://example.com", "http://127.0.0.1:8080"),
	// a host ("example.com", any scheme and port) or a domain and its
	// subdomains ("*.example.com").
	AllowedOrigins []string
	// BlockedOrigins are places that may not be loaded, in the same forms;
	// they win over AllowedOrigins.
	BlockedOrigins []string
}

// Check returns nil when rawURL may be loaded, and otherwise an error
// matching [ErrURLBlocked] that names the rule.
func (p *URLPolicy) Check(rawURL string) error {
	if rawURL == "about:blank" {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%w: %q: %v", ErrURLBlocked, rawURL, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" && !slices.Contains(p.Schemes, scheme) {
		return fmt.Errorf("%w: %s: the %s: scheme is not allowed", ErrURLBlocked, rawURL, scheme)
	}
	if scheme != "http" && scheme != "https" {
		return nil // origins are for web URLs
	}
	if match(p.BlockedOrigins, u) {
		return fmt.Errorf("%w: %s: its origin is blocked", ErrURLBlocked, rawURL)
	}
	if len(p.AllowedOrigins) > 0 && !match(p.AllowedOrigins, u) {
		return fmt.Errorf("%w: %s: its origin is not among the allowed ones", ErrURLBlocked, rawURL)
	}
	return nil
}

// match reports whether u's origin is one of places.
func match(places []string, u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	origin := strings.ToLower(u.Scheme + "://" + u.Host)
	for _, p := range places {
		p = strings.ToLower(strings.TrimSuffix(p, "/"))
		switch {
		case strings.Contains(p, "://"):
			if p == origin {
				return true
			}
		case strings.HasPrefix(p, "*."):
			if host == p[2:] || strings.HasSuffix(host, p[1:]) {
				return true
			}
		case p == host:
			return true
		}
	}
	return false
}
