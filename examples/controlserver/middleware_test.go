package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guarded is Guard over a handler that counts the requests it gets.
func guarded(addr, token string) (http.Handler, *atomic.Int32) {
	var reached atomic.Int32
	return Guard(addr, token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		writeJSON(w, http.StatusOK, OpenResponse{Tab: "ok"})
	})), &reached
}

// guardCase is one request to Guard and the answer it must get.
type guardCase struct {
	name   string
	method string            // GET when empty
	host   string            // 127.0.0.1:8090 when empty
	header map[string]string // on top of Content-Type: application/json for a POST
	status int
	want   string // in the error, for a refusal
}

// runGuard sends each case through Guard(addr, token) and checks the
// answer, and that a refused request never reaches the handler.
func runGuard(t *testing.T, addr, token string, tests []guardCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, reached := guarded(addr, token)
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			var body *strings.Reader
			if method == http.MethodPost {
				body = strings.NewReader(`{"url":"http://127.0.0.1:1/"}`)
			} else {
				body = strings.NewReader("")
			}
			r := httptest.NewRequest(method, "/browser/tabs", body)
			r.Host = "127.0.0.1:8090"
			if tt.host != "" {
				r.Host = tt.host
			}
			if method == http.MethodPost {
				r.Header.Set("Content-Type", "application/json")
			}
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)

			require.Equal(t, tt.status, rec.Code, "body: %s", rec.Body)
			assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
			if tt.status == http.StatusOK {
				assert.EqualValues(t, 1, reached.Load())
				return
			}
			assert.EqualValues(t, 0, reached.Load(), "a refused request must not reach the handler")
			var e ErrorResponse
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
			assert.Contains(t, e.Error, tt.want)
		})
	}
}

func TestGuardHost(t *testing.T) {
	const forbidden = http.StatusForbidden
	runGuard(t, "127.0.0.1:8090", "", []guardCase{
		{name: "listen address", status: http.StatusOK},
		{name: "localhost", host: "localhost:8090", status: http.StatusOK},
		{name: "localhost in capitals", host: "LOCALHOST:8090", status: http.StatusOK},
		{name: "IPv6 loopback", host: "[::1]:8090", status: http.StatusOK},
		{name: "DNS rebinding", host: "attacker.example:8090", status: forbidden,
			want: `host "attacker.example:8090" is not this server: call it as http://127.0.0.1:8090`},
		{name: "another port", host: "127.0.0.1:8091", status: forbidden, want: "is not this server"},
		{name: "no port", host: "localhost", status: forbidden, want: "is not this server"},
		{name: "subdomain of localhost", host: "evil.localhost:8090", status: forbidden, want: "is not this server"},
		{name: "trailing dot", host: "localhost.:8090", status: forbidden, want: "is not this server"},
		{name: "empty", host: " ", status: forbidden, want: "is not this server"},
	})
	// A server on port 80 is named without a port too, and one listening on
	// every address still answers to the loopback names alone.
	runGuard(t, "127.0.0.1:80", "", []guardCase{
		{name: "port 80 without port", host: "localhost", status: http.StatusOK},
	})
	runGuard(t, ":8090", "", []guardCase{
		{name: "every address, loopback", host: "127.0.0.1:8090", status: http.StatusOK},
		{name: "every address, LAN name", host: "desktop.lan:8090", status: forbidden, want: "call it as http://127.0.0.1:8090"},
	})
}

func TestGuardOrigin(t *testing.T) {
	const forbidden = http.StatusForbidden
	runGuard(t, "127.0.0.1:8090", "", []guardCase{
		{name: "none, as curl and Go send", method: http.MethodPost, status: http.StatusOK},
		{name: "own origin", method: http.MethodPost, header: map[string]string{"Origin": "http://127.0.0.1:8090"}, status: http.StatusOK},
		{name: "own origin by name", method: http.MethodPost, header: map[string]string{"Origin": "http://localhost:8090"}, status: http.StatusOK},
		{name: "foreign", method: http.MethodPost, header: map[string]string{"Origin": "http://attacker.example:8090"}, status: forbidden,
			want: `origin "http://attacker.example:8090" may not call this server`},
		{name: "foreign on a GET", header: map[string]string{"Origin": "https://attacker.example"}, status: forbidden, want: "may not call this server"},
		{name: "another port of this machine", method: http.MethodPost, header: map[string]string{"Origin": "http://127.0.0.1:3000"}, status: forbidden, want: "may not call this server"},
		{name: "https of this host", method: http.MethodPost, header: map[string]string{"Origin": "https://127.0.0.1:8090"}, status: forbidden, want: "may not call this server"},
		{name: "null, as a sandboxed frame sends", method: http.MethodPost, header: map[string]string{"Origin": "null"}, status: forbidden, want: `origin "null"`},
	})
}

func TestGuardContentType(t *testing.T) {
	const unsupported = http.StatusUnsupportedMediaType
	runGuard(t, "127.0.0.1:8090", "", []guardCase{
		{name: "json", method: http.MethodPost, status: http.StatusOK},
		{name: "json with charset", method: http.MethodPost, header: map[string]string{"Content-Type": "application/json; charset=utf-8"}, status: http.StatusOK},
		{name: "json in capitals", method: http.MethodPost, header: map[string]string{"Content-Type": "Application/JSON"}, status: http.StatusOK},
		{name: "text/plain, as a page sends without a preflight", method: http.MethodPost, header: map[string]string{"Content-Type": "text/plain"}, status: unsupported,
			want: `Content-Type "text/plain": send the body as application/json`},
		{name: "form", method: http.MethodPost, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, status: unsupported, want: "send the body as application/json"},
		{name: "multipart", method: http.MethodPost, header: map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, status: unsupported, want: "application/json"},
		{name: "none", method: http.MethodPost, header: map[string]string{"Content-Type": ""}, status: unsupported, want: `Content-Type ""`},
		{name: "json as a suffix", method: http.MethodPost, header: map[string]string{"Content-Type": "text/plain; a=application/json"}, status: unsupported, want: "application/json"},
		{name: "GET needs none", status: http.StatusOK},
	})
}

func TestGuardToken(t *testing.T) {
	const unauthorized = http.StatusUnauthorized
	runGuard(t, "127.0.0.1:8090", "s3cret", []guardCase{
		{name: "right", header: map[string]string{"Authorization": "Bearer s3cret"}, status: http.StatusOK},
		{name: "scheme in lower case", header: map[string]string{"Authorization": "bearer s3cret"}, status: http.StatusOK},
		{name: "missing", status: unauthorized, want: "missing or wrong bearer token: send Authorization: Bearer <token>"},
		{name: "wrong", header: map[string]string{"Authorization": "Bearer s3cre"}, status: unauthorized, want: "missing or wrong bearer token"},
		{name: "longer", header: map[string]string{"Authorization": "Bearer s3cret2"}, status: unauthorized, want: "missing or wrong bearer token"},
		{name: "basic", header: map[string]string{"Authorization": "Basic czNjcmV0"}, status: unauthorized, want: "missing or wrong bearer token"},
		{name: "bare token", header: map[string]string{"Authorization": "s3cret"}, status: unauthorized, want: "missing or wrong bearer token"},
		{name: "right token on a POST", method: http.MethodPost, header: map[string]string{"Authorization": "Bearer s3cret"}, status: http.StatusOK},
	})
	// Without a token, no Authorization is needed.
	runGuard(t, "127.0.0.1:8090", "", []guardCase{{name: "no token set", status: http.StatusOK}})

	h, _ := guarded("127.0.0.1:8090", "s3cret")
	r := httptest.NewRequest(http.MethodGet, "/browser/tabs", nil)
	r.Host = "127.0.0.1:8090"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	assert.Equal(t, "Bearer", rec.Header().Get("WWW-Authenticate"))
}
