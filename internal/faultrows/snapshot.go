package faultrows

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// SnapshotServer starts a 127.0.0.1 server of the snapshot rows' pages:
// "/links?n=N" (N links in a list), "/busy" (a script that never ends,
// started once the page has loaded) and "/frames" (a button, then an
// iframe of the same site and one of another site: localhost, on the same
// server), whose iframes are "/inner?name=N". more adds pages by path.
func SnapshotServer(t testing.TB, more map[string]string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for path, html := range more {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, html) })
	}
	mux.HandleFunc("/links", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		var b strings.Builder
		b.WriteString("<!doctype html><title>links</title><ul>")
		for i := range n {
			fmt.Fprintf(&b, `<li><a href="/item/%d">Item %d</a></li>`, i, i)
		}
		b.WriteString("</ul>")
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>busy</title><button>Go</button>
<script>addEventListener("load", () => setTimeout(() => { while (true) {} }, 0))</script>`)
	})
	mux.HandleFunc("/frames", func(w http.ResponseWriter, r *http.Request) {
		u, _ := url.Parse("http://" + r.Host)
		cross := "http://localhost:" + u.Port() + "/inner?name=b"
		fmt.Fprint(w, `<!doctype html><title>outer</title><button>Outer</button>`+
			`<iframe src="/inner?name=a"></iframe><iframe src="`+cross+`"></iframe>`)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		fmt.Fprintf(w, `<!doctype html><title>inner-%s</title><a href="/x">Link %s</a><button>Button %s</button>`, name, name, name)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
