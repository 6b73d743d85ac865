package faultrows

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// LocalNetworkPath is where the target server of LocalNetworkServers
// answers, to any origin.
const LocalNetworkPath = "/data"

// LocalNetworkBody is what it answers.
const LocalNetworkBody = "lna-ok"

// LocalNetworkServers starts the two 127.0.0.1 servers of a local network
// request: page serves a page, which a browser launched with PublicFlag
// takes for a public site; target answers LocalNetworkBody at
// LocalNetworkPath to any origin (CORS), an address of this machine as the
// page's is not. Both end when t does.
func LocalNetworkServers(t testing.TB) (page, target *httptest.Server) {
	t.Helper()
	page = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>public</title><p>public")
	}))
	t.Cleanup(page.Close)
	target = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, LocalNetworkBody)
	}))
	t.Cleanup(target.Close)
	return page, target
}

// PublicFlag is the Chrome switch, and its value, that makes Chrome take
// the server srv for a public site (--ip-address-space-overrides): a
// request of its pages to another 127.0.0.1 port then needs the
// loopback-network permission.
func PublicFlag(srv *httptest.Server) (name, value string) {
	u, _ := url.Parse(srv.URL)
	return "ip-address-space-overrides", u.Host + "=public"
}

// FetchJS is a function that fetches rawURL and returns its text.
func FetchJS(rawURL string) string {
	return "() => fetch(" + fmt.Sprintf("%q", rawURL) + ").then(r => r.text())"
}

// NotificationJS asks for the notifications permission and returns the
// answer; PermissionStateJS returns what navigator.permissions says of
// permission name.
const (
	NotificationJS    = `() => Notification.requestPermission()`
	PermissionStateJS = `name => navigator.permissions.query({name}).then(s => s.state)`
)

// PrintJS calls print() and returns print's source: Chrome's own reads
// "function print() { [native code] }".
const PrintJS = `() => { print(); return String(print) }`

// ReplacedPrint is the source of the print the watcher puts in place.
const ReplacedPrint = "print(){}"
