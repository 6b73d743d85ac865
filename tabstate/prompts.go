package tabstate

import (
	"errors"
	"net/url"
	"strings"
)

// Reasons a load stopped at a prompt the browser shows instead of the
// page: Chrome answers them with a network error and its error page, and
// navigating again meets the same prompt. Each is also an [ErrNoDocument]
// (the tab holds no document of the page), for programs written before
// they were told apart.
var (
	// ErrSignInRequired reports that the server asked for credentials
	// (HTTP authentication, a 401 challenge) and none were given: headless
	// Chrome cancels the challenge at once.
	ErrSignInRequired = errors.New("sign-in required")
	// ErrCertificate reports that the server's TLS certificate was
	// refused: untrusted, expired, for another host. Detail names Chrome's
	// error and the host.
	ErrCertificate = errors.New("certificate error")
	// ErrClientCertificate reports that the server asked for a client
	// certificate, and none was given.
	ErrClientCertificate = errors.New("client certificate requested")
)

// promptReason is the reason of a load that failed with Chrome's
// errorText, when a prompt stopped it; nil otherwise.
func promptReason(errorText string) error {
	switch {
	case errorText == "net::ERR_INVALID_AUTH_CREDENTIALS":
		return ErrSignInRequired
	case errorText == "net::ERR_BAD_SSL_CLIENT_AUTH_CERT" || errorText == "net::ERR_SSL_CLIENT_AUTH_CERT_NEEDED":
		return ErrClientCertificate
	case strings.HasPrefix(errorText, "net::ERR_CERT_") || errorText == "net::ERR_SSL_PINNED_KEY_NOT_IN_CERT_CHAIN":
		return ErrCertificate
	}
	return nil
}

// LoadFailure is the refusal of a tab or frame whose load at rawURL failed
// with Chrome's errorText, such as "net::ERR_CERT_AUTHORITY_INVALID": the
// reason of the prompt that stopped it, naming the host, or ErrNoDocument.
func LoadFailure(rawURL, errorText string) *BlockedError {
	reason := promptReason(errorText)
	if reason == nil {
		return &BlockedError{Reason: ErrNoDocument, URL: rawURL, Detail: errorText}
	}
	detail := errorText
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		detail += " for " + u.Host
	}
	return &BlockedError{Reason: reason, URL: rawURL, Detail: detail}
}

// noDocument reports whether reason is one a failed load has: the tab
// holds no document of its page.
func noDocument(reason error) bool {
	return reason == ErrNoDocument || reason == ErrSignInRequired || reason == ErrCredentialsRefused ||
		reason == ErrCertificate || reason == ErrClientCertificate
}
