package cdpws

import (
	"net/url"
	"strings"
)

// RedactedError is a failure to reach the DevTools endpoint at URL, told
// without URL's query string, fragment and user info, which may hold a
// pool's token or credentials. The errors beneath quote URLs in full
// (net/http's [*url.Error] does), so every URL in their text is told
// without those parts too.
type RedactedError struct {
	// Op is what failed, such as "resolve"; empty means "connect to".
	Op string
	// URL is the endpoint, in full.
	URL string
	// Err is the error beneath.
	Err error
}

// Error reads like "connect to ws://host/x?…: context deadline exceeded".
func (e *RedactedError) Error() string {
	op := e.Op
	if op == "" {
		op = "connect to"
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return op + " " + redactURL(e.URL) + ": " + redactMessage(msg, e.URL)
}

// Unwrap returns the error beneath.
func (e *RedactedError) Unwrap() error { return e.Err }

// redactURLErrors redacts, in place, the URL of every [*url.Error] in
// err's tree, which errors.As reaches and which quotes the URL in full, and
// returns err. Each is net/http's or url.Parse's, made for the one request
// or parse that failed, so no one else holds it.
func redactURLErrors(err error) error {
	switch e := err.(type) {
	case *url.Error:
		e.URL = redactURL(e.URL)
		redactURLErrors(e.Err)
	case interface{ Unwrap() error }:
		redactURLErrors(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, err := range e.Unwrap() {
			redactURLErrors(err)
		}
	}
	return err
}

// redactMessage redacts every URL in msg, and rawURL's query string
// wherever it stands on its own.
func redactMessage(msg, rawURL string) string {
	if _, query, ok := strings.Cut(rawURL, "?"); ok {
		query, _, _ = strings.Cut(query, "#")
		if query != "" {
			msg = strings.ReplaceAll(msg, query, "…")
		}
	}
	var b strings.Builder
	for {
		i := strings.Index(msg, "://")
		if i < 0 {
			break
		}
		start := i
		for start > 0 && isSchemeByte(msg[start-1]) {
			start--
		}
		end := i + len("://")
		for end < len(msg) && !endsURL(msg, end) {
			end++
		}
		// Punctuation that closes the URL belongs to the sentence.
		for end > i+len("://") && strings.IndexByte(":,.;)", msg[end-1]) >= 0 {
			end--
		}
		b.WriteString(msg[:start])
		b.WriteString(redactURL(msg[start:end]))
		msg = msg[end:]
	}
	b.WriteString(msg)
	return b.String()
}

// redactURL returns raw with its query string and fragment shown as "?…"
// and "#…", and its user info as "…@". It works on the text, so a URL that
// does not parse is redacted too.
func redactURL(raw string) string {
	head, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		head, rest = raw[:i+len("://")], raw[i+len("://"):]
	} else if strings.HasPrefix(raw, "//") {
		head, rest = "//", raw[2:]
	}
	tail := ""
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest, tail = rest[:i], rest[i:]
		if len(tail) > 1 {
			tail = tail[:1] + "…"
		}
	}
	authority, _, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		rest = "…@" + rest[i+1:]
	}
	return head + rest + tail
}

// isSchemeByte reports whether c may stand in a URL scheme.
func isSchemeByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// endsURL reports whether msg[i] ends a URL quoted in an error's text: a
// space, or a quote that is not escaped, as %q escapes one inside the URL.
func endsURL(msg string, i int) bool {
	switch c := msg[i]; c {
	case ' ', '\t', '\r', '\n', '\'', '<', '>', '`':
		return true
	case '"':
		return msg[i-1] != '\\'
	}
	return false
}
