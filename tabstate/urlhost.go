package tabstate

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// webOrigin is the origin of an http or https URL as the browser reads it:
// the URL standard's parser, which Chrome follows, not the text as
// written. Chrome loads 127.0.0.1 for http://2130706433/, http://0x7f000001/,
// http://0177.0.0.1/, http://127.1/, http://127.0.0.1./,
// http://[::ffff:127.0.0.1]/, http:127.0.0.1 and http:\\127.0.0.1, so a
// policy that compared the text would let each of them past a rule that
// names 127.0.0.1.
type webOrigin struct {
	scheme string // "http" or "https"
	// host is a lowercase name without a trailing dot, an IPv4 address in
	// dotted decimal (an IPv4-mapped IPv6 address counts as its IPv4
	// address, which is what the browser connects to), or an IPv6 address
	// in its canonical form, without brackets.
	host  string
	port  string // empty for the scheme's default port
	ascii bool   // the host as written is ASCII after percent-decoding
}

// String is the origin as a browser writes it, such as "http://127.0.0.1:8080".
func (o webOrigin) String() string {
	host := o.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if o.port != "" {
		host += ":" + o.port
	}
	return o.scheme + "://" + host
}

// errBadHost reports a web URL whose host the browser would refuse to load.
var errBadHost = errors.New("not a valid host")

// splitScheme returns rawURL's scheme, lowercase, and what follows its
// colon, after removing what the URL standard removes first: leading and
// trailing spaces and control characters, and tabs and newlines anywhere.
func splitScheme(rawURL string) (scheme, rest string, ok bool) {
	s := strings.TrimFunc(rawURL, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", "", false
	}
	for j, c := range []byte(s[:i]) {
		isAlpha := 'a' <= c|0x20 && c|0x20 <= 'z'
		if !isAlpha && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return strings.ToLower(s[:i]), s[i+1:], true
}

// parseWebOrigin reads the origin of rest, the part of an http or https URL
// after "scheme:", the way the URL standard does: any run of slashes and
// backslashes before the host, userinfo up to the last @, the host
// percent-decoded, an IPv4 address in any of the forms the standard takes,
// and the scheme's default port dropped.
func parseWebOrigin(scheme, rest string) (webOrigin, error) {
	o := webOrigin{scheme: scheme, ascii: true}
	rest = strings.TrimLeft(rest, `/\`)
	if i := strings.IndexAny(rest, `/\?#`); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	host, port := rest, ""
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return o, errBadHost
		}
		host, port = rest[:end+1], rest[end+1:]
		if port != "" && port[0] != ':' {
			return o, errBadHost
		}
		port = strings.TrimPrefix(port, ":")
	} else if i := strings.IndexByte(rest, ':'); i >= 0 {
		host, port = rest[:i], rest[i+1:]
	}
	var err error
	if o.port, err = canonicalPort(scheme, port); err != nil {
		return o, err
	}
	o.host, o.ascii, err = canonicalHost(host)
	return o, err
}

// canonicalPort returns port as a number without leading zeros, or empty
// when it is the scheme's default.
func canonicalPort(scheme, port string) (string, error) {
	if port == "" {
		return "", nil
	}
	if strings.Trim(port, "0123456789") != "" {
		return "", errBadHost
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", errBadHost
	}
	if scheme == "http" && n == 80 || scheme == "https" && n == 443 {
		return "", nil
	}
	return strconv.FormatUint(n, 10), nil
}

// canonicalHost returns host as the browser reads it (see webOrigin.host),
// and whether it is ASCII. A non-ASCII host is returned lowercase but not
// mapped: the browser maps it through IDNA, which may turn it into an ASCII
// name or an IP address (full-width digits, for one), so a caller cannot
// match it against a rule.
func canonicalHost(host string) (string, bool, error) {
	if strings.HasPrefix(host, "[") {
		addr, err := netip.ParseAddr(strings.TrimSuffix(host[1:], "]"))
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return "", true, errBadHost
		}
		return addr.Unmap().String(), true, nil
	}
	decoded, ok := percentDecode(host)
	if !ok || decoded == "" || strings.ContainsAny(decoded, " #%/:<>?@[\\]^|\x7f") ||
		strings.ContainsFunc(decoded, func(r rune) bool { return r < ' ' }) {
		return "", true, errBadHost
	}
	for _, r := range decoded {
		if r >= 0x80 {
			return strings.ToLower(decoded), false, nil
		}
	}
	decoded = strings.ToLower(decoded)
	if endsInNumber(decoded) {
		addr, ok := parseIPv4(decoded)
		if !ok {
			return "", true, errBadHost
		}
		return addr.String(), true, nil
	}
	return strings.TrimSuffix(decoded, "."), true, nil
}

// percentDecode decodes %XX sequences; ok is false for a malformed one,
// which leaves a % in a host, where it is forbidden.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), true
}

// endsInNumber is the URL standard's test for a host that must be an IPv4
// address: its last label (before an optional trailing dot) is decimal
// digits, or 0x and hex digits.
func endsInNumber(host string) bool {
	labels := strings.Split(host, ".")
	last := labels[len(labels)-1]
	if last == "" && len(labels) > 1 {
		last = labels[len(labels)-2]
	}
	if last == "" {
		return false
	}
	if strings.Trim(last, "0123456789") == "" {
		return true
	}
	return strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == ""
}

// parseIPv4 is the URL standard's IPv4 parser: one to four parts, each
// decimal, octal with a leading 0, or hex with 0x; the last part fills the
// bytes the others leave.
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		if p == "" { // "0x" alone is zero
			if base != 16 {
				return netip.Addr{}, false
			}
			p = "0"
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := len(nums) - 1
	var v uint64
	for _, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v = v<<8 | n
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v = v<<(8*(4-last)) | nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
