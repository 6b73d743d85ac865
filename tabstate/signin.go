package tabstate

import (
	"errors"
	"net/url"
	"strconv"
)

// ErrCredentialsRefused reports that the server refused the credentials
// the program gave for a sign-in (it asked again after them): the tab shows
// the server's own answer to a refused sign-in, usually a 401 page. It is an
// [ErrNoDocument] too: the tab holds no document of the page asked for.
var ErrCredentialsRefused = errors.New("credentials refused")

// SignIn is a server's request for credentials (HTTP authentication: a
// 401 challenge, or a proxy's 407), as a credentials callback sees it.
type SignIn struct {
	// URL is the document that asked.
	URL string
	// Origin is the scheme, host and port that asked, such as
	// "https://127.0.0.1:8443": credentials belong to it.
	Origin string
	// Realm is the server's name for what the credentials open; Scheme is
	// "basic", "digest", "ntlm" or "negotiate".
	Realm, Scheme string
	// Proxy is set when a proxy asked, rather than the server.
	Proxy bool
	// FrameID is the frame whose document asked: the tab's main frame, or
	// one of its iframes.
	FrameID string
}

// Credentials answer a SignIn.
type Credentials struct {
	Username, Password string
}

// SignInRefused is the reason a navigation to rawURL ended at a sign-in:
// ErrCredentialsRefused when given says credentials were given and the
// server asked again, ErrSignInRequired otherwise. It names the origin and
// realm, never the credentials.
func SignInRefused(rawURL string, s SignIn, given bool) *BlockedError {
	reason := ErrSignInRequired
	if given {
		reason = ErrCredentialsRefused
	}
	detail := s.Origin
	if detail == "" {
		if u, err := url.Parse(rawURL); err == nil {
			detail = u.Host
		}
	}
	if s.Realm != "" {
		detail += " (realm " + quote(s.Realm) + ")"
	}
	if s.Proxy {
		detail = "proxy " + detail
	}
	return &BlockedError{Reason: reason, URL: rawURL, Detail: detail}
}

// quote quotes a server's string for a message, cut after 80 bytes.
func quote(s string) string {
	for i := range s {
		if i >= 80 {
			s = s[:i] + "…"
			break
		}
	}
	return strconv.Quote(s)
}
