package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/tabguard/tabguard"
)

// checkHost refuses a web URL whose host the browser would read otherwise
// than its text says. tabguard.URLPolicy matches origins on the text, while
// Chrome rewrites the host before it connects: http://2852039166/,
// http://0xA9FEA9FE/, http://169.254.169.254./, http:169.254.169.254 and
// http://[::ffff:169.254.169.254]/ all load 169.254.169.254, which
// -blocked-origins names (measured with 127.0.0.1 on Chromium 156). So the
// server takes a host only in the form Chrome keeps as it is: an ASCII
// name with no trailing dot, a dotted-quad IPv4 address, or an IPv6 one
// with no IPv4 address inside. Other schemes are the policy's business.
func checkHost(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil // the policy refuses what it cannot parse
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s: %s", tabguard.ErrURLBlocked, rawURL, why)
	}
	host := u.Hostname()
	switch {
	case u.Opaque != "" || host == "" || strings.Contains(rawURL, `\`):
		return refuse("write it as " + u.Scheme + "://host/path")
	case strings.HasSuffix(host, "."):
		return refuse("write its host without the trailing dot")
	case strings.ContainsFunc(host, func(r rune) bool { return r > 0x7f }):
		return refuse("write its host in ASCII (punycode)")
	case strings.Contains(host, ":"):
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil {
			return refuse("write an IPv4 address as a.b.c.d, not inside IPv6")
		}
	case endsInNumber(host):
		if ip := net.ParseIP(host); ip == nil || ip.To4() == nil || ip.String() != host {
			return refuse("write its IP address as a.b.c.d in decimal")
		}
	}
	return nil
}

// endsInNumber reports whether the browser reads host as an IPv4 address
// (the URL standard's "ends in a number"): its last label is decimal
// digits, or 0x and hex digits.
func endsInNumber(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	if l := strings.ToLower(last); strings.HasPrefix(l, "0x") {
		return strings.Trim(l[2:], "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}
