package faultrows

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// MilestonesServer starts a 127.0.0.1 server for t, for the lifecycle
// milestone rows of every backend: "/" is a page of text and
// an image, "/held" one whose image the server holds until release is
// called, so its document cannot reach NetworkIdle before.
func MilestonesServer(t testing.TB) (srv *httptest.Server, release func()) {
	t.Helper()
	held := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="teal"/></svg>`
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>one</title><p>héllo</p><img src="/dot.svg">`)
	})
	mux.HandleFunc("/held", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>two</title><p>wörld</p><img src="/held.svg">`)
	})
	mux.HandleFunc("/dot.svg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, svg)
	})
	mux.HandleFunc("/held.svg", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, svg)
	})
	mux.HandleFunc("/favicon.ico", http.NotFound)
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(release) // runs first: Close waits for the handlers
	return srv, release
}
