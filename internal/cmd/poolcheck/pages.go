package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
)

// servePages serves the one page the rows load, from 127.0.0.1 only
// (httptest listens there). The caller should call Close when finished.
func servePages() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>poolcheck</title></head><body><p>héllo from the pool</p></body></html>`)
	})
	return httptest.NewServer(mux)
}
