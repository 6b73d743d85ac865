package tabstate

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckInsecureHosts returns an error wrapping ErrInvalidArgument for a
// list of hosts whose certificate errors a browser may ignore that is not
// made of host names or IP addresses, each optionally with a port: no
// scheme, path or wildcard, so that no entry names more hosts than it
// reads.
func CheckInsecureHosts(hosts []string) error {
	for _, h := range hosts {
		if h == "" || strings.ContainsAny(h, "/*?#@ ") {
			return fmt.Errorf("%w: Options.InsecureHosts: %q is not a host name or address (such as \"intranet.example\" or \"127.0.0.1:8443\"); wildcards are not taken", ErrInvalidArgument, h)
		}
		name := h
		if hn, port, err := net.SplitHostPort(h); err == nil {
			if port == "" {
				return fmt.Errorf("%w: Options.InsecureHosts: %q has an empty port", ErrInvalidArgument, h)
			}
			name = hn
		}
		if name == "" || strings.Trim(name, ".") != name {
			return fmt.Errorf("%w: Options.InsecureHosts: %q is not a host name or address", ErrInvalidArgument, h)
		}
	}
	return nil
}

// InsecureHost reports whether rawURL's host is one of hosts, whose
// certificate errors are ignored: an entry with a port names that port
// only, one without names every port. Names compare without case.
func InsecureHost(hosts []string, rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	name, port := u.Hostname(), u.Port()
	if port == "" && u.Scheme == "https" {
		port = "443"
	}
	for _, h := range hosts {
		hn, hp, err := net.SplitHostPort(h)
		if err != nil {
			hn, hp = strings.Trim(h, "[]"), ""
		}
		if strings.EqualFold(hn, name) && (hp == "" || hp == port) {
			return true
		}
	}
	return false
}
