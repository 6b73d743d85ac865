package agentprompt

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// NormalOrigin returns s as scheme://host[:port]: http or https, the host
// in lower case, the port left out when it is the scheme's default, as
// Chrome names the origin that asks for credentials. Anything more (a
// path, a query, a user) is an error.
func NormalOrigin(s string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("origin %q: %s: write it as http(s)://host[:port]", s, why)
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", bad("not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "http" && scheme != "https":
		return "", bad("not http or https")
	case u.Host == "" || u.Hostname() == "":
		return "", bad("no host")
	case u.User != nil:
		return "", bad("a user belongs in username")
	case u.Opaque != "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", bad("an origin has no path, query or fragment")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "80" && scheme == "http" || port == "443" && scheme == "https" {
		port = ""
	}
	if port == "" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host, nil
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}
