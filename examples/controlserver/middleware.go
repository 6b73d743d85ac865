package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strings"
)

// Guard returns next behind the checks a control server on a user's
// machine needs, since any web page the user opens can send it requests:
//
//   - the Host header must name this server: addr (the address it listens
//     on), localhost, 127.0.0.1 or [::1], with addr's port; anything else
//     is a DNS-rebinding page (403);
//   - an Origin header, which browsers send and curl and Go clients do not,
//     must be this server's own (403);
//   - with a token, every request needs "Authorization: Bearer <token>" (401);
//   - a request with a body must say Content-Type: application/json (415),
//     which a page cannot send cross-origin without a CORS preflight that
//     the server never grants.
func Guard(addr, token string, next http.Handler) http.Handler {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, "80"
	}
	g := &guard{next: next, hosts: map[string]bool{}, origins: map[string]bool{}, token: token}
	for _, h := range []string{host, "localhost", "127.0.0.1", "::1"} {
		if h == "" {
			continue // listening on every address: the names above still hold
		}
		hp := strings.ToLower(net.JoinHostPort(h, port))
		g.hosts[hp] = true
		g.origins["http://"+hp] = true
		if port == "80" {
			g.origins["http://"+strings.ToLower(bracket(h))] = true
		}
	}
	g.self = "http://" + net.JoinHostPort(host, port)
	if host == "" {
		g.self = "http://" + net.JoinHostPort("127.0.0.1", port)
	}
	g.want = sha256.Sum256([]byte("Bearer " + token))
	return g
}

type guard struct {
	next    http.Handler
	hosts   map[string]bool // "127.0.0.1:8090"
	origins map[string]bool // "http://127.0.0.1:8090"
	self    string          // the URL to tell a caller that used another
	token   string
	want    [32]byte // the hash of the Authorization header the token asks for
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !g.hosts[hostPort(r.Host)] {
		deny(w, http.StatusForbidden, "host %q is not this server: call it as %s", r.Host, g.self)
		return
	}
	if origins := r.Header.Values("Origin"); len(origins) > 1 || len(origins) == 1 && !g.origins[strings.ToLower(origins[0])] {
		deny(w, http.StatusForbidden, "origin %q may not call this server: only programs on this machine may", strings.Join(origins, ", "))
		return
	}
	if g.token != "" && !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		deny(w, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <token> (the server's -token or TABGUARD_TOKEN)")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			deny(w, http.StatusUnsupportedMediaType, "Content-Type %q: send the body as application/json", r.Header.Get("Content-Type"))
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// authorized compares the Authorization header with the token in constant
// time: hashing both first hides the token's length too.
func (g *guard) authorized(r *http.Request) bool {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte("Bearer " + cred))
	return subtle.ConstantTimeCompare(got[:], g.want[:]) == 1
}

// hostPort is a Host header as host:port, lowercased; a Host without a
// port names port 80.
func hostPort(h string) string {
	h = strings.ToLower(h)
	if _, _, err := net.SplitHostPort(h); err != nil {
		return net.JoinHostPort(strings.Trim(h, "[]"), "80")
	}
	return h
}

// bracket puts an IPv6 address in brackets, as a URL has it.
func bracket(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

func deny(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, ErrorResponse{Error: fmt.Sprintf(format, args...)})
}
