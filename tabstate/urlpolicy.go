package tabstate

import (
	"fmt"
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
//
// It reads rawURL's origin as the browser will, by the URL standard, so
// http://2130706433/, http://0x7f000001/, http://127.1/,
// http://[::ffff:127.0.0.1]/ and http:127.0.0.1 are all 127.0.0.1 to it, and
// http://example.com:80/ is http://example.com. While the policy has
// origin rules, it refuses a host that is not ASCII (write it in punycode),
// since the browser's IDNA mapping could turn it into a blocked one.
//
// A URL check cannot see DNS: a name that resolves to a blocked address,
// including localhost and its subdomains, which Chrome takes as loopback,
// loads unless a rule names it too.
func (p *URLPolicy) Check(rawURL string) error {
	if rawURL == "about:blank" {
		return nil
	}
	scheme, rest, ok := splitScheme(rawURL)
	if !ok {
		return fmt.Errorf("%w: %q: not an absolute URL", ErrURLBlocked, rawURL)
	}
	if scheme != "http" && scheme != "https" && !slices.Contains(p.Schemes, scheme) {
		return fmt.Errorf("%w: %s: the %s: scheme is not allowed", ErrURLBlocked, rawURL, scheme)
	}
	if scheme != "http" && scheme != "https" {
		return nil // origins are for web URLs
	}
	o, err := parseWebOrigin(scheme, rest)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrURLBlocked, rawURL, err)
	case len(p.BlockedOrigins)+len(p.AllowedOrigins) == 0:
		return nil
	case !o.ascii:
		return fmt.Errorf("%w: %s: write its host in ASCII (punycode) for the origin rules to apply", ErrURLBlocked, rawURL)
	case match(p.BlockedOrigins, o):
		return fmt.Errorf("%w: %s: its origin %s is blocked", ErrURLBlocked, rawURL, o)
	case len(p.AllowedOrigins) > 0 && !match(p.AllowedOrigins, o):
		return fmt.Errorf("%w: %s: its origin %s is not among the allowed ones", ErrURLBlocked, rawURL, o)
	}
	return nil
}

// match reports whether o is one of places, each read as the browser reads
// a URL's origin or host, so a rule may write an address in any form.
func match(places []string, o webOrigin) bool {
	for _, p := range places {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case strings.Contains(p, "://"):
			scheme, rest, _ := splitScheme(p)
			if po, err := parseWebOrigin(scheme, rest); err == nil && po.String() == o.String() {
				return true
			}
		case strings.HasPrefix(p, "*."):
			domain := strings.TrimSuffix(p[2:], ".")
			if o.host == domain || strings.HasSuffix(o.host, "."+domain) {
				return true
			}
		default:
			if strings.Count(p, ":") > 1 && !strings.HasPrefix(p, "[") {
				p = "[" + p + "]" // an IPv6 address
			}
			if host, _, err := canonicalHost(p); err == nil && host == o.host {
				return true
			}
		}
	}
	return false
}

// CheckFrame is Check for a call in iframe id of frames (a watcher's
// Frames). A page's own script cannot read an iframe of another origin;
// a call in the frame can, so a program that opens only what its policy
// allows should reach into a frame only at such a URL, or a page at an
// allowed origin could hand it one that is blocked, such as a cloud
// metadata address. The URL that counts is the frame's, or, for a frame
// at about:blank or about:srcdoc, whose document takes its origin from
// the page that made it, its nearest parent's with a URL. An ID frames
// does not have passes: the call gets its own answer, that the frame is
// gone.
func (p *URLPolicy) CheckFrame(frames []FrameInfo, id string) error {
	byID := make(map[string]FrameInfo, len(frames))
	for _, f := range frames {
		byID[f.ID] = f
	}
	for f, ok := byID[id]; ok; f, ok = byID[f.ParentID] {
		if f.URL == "" || strings.HasPrefix(f.URL, "about:") {
			continue
		}
		return p.Check(f.URL)
	}
	return nil // the page itself, which the tab's own calls reach already
}
