package cdpws_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The secrets a caller puts in an endpoint's URL; no error may quote them.
const (
	token    = "secret"
	user     = "alice"
	password = "hunter2"
)

// endpointOptions shape an endpoint's answers.
type endpointOptions struct {
	// ownQuery is the query string of the webSocketDebuggerUrl it answers
	// with, as a pool that names a session there would.
	ownQuery string
	// answerHost is the host:port the answer names; the endpoint's own
	// when empty.
	answerHost string
	// basicAuth makes it require user and password, besides the token.
	basicAuth bool
	// version, when not empty, is the /json/version body, sent as it is.
	version string
	// stall makes /json/version answer nothing until the request is done.
	stall bool
	// bearer makes it take the token in an Authorization header, as
	// "Bearer secret", in place of the query string.
	bearer bool
}

// endpoint is a DevTools endpoint on 127.0.0.1 that, as a browser pool
// does, answers 401 to every request without ?token=secret: on
// /json/version, and on its WebSocket at /devtools/browser/abc. The
// WebSocket sends one message, {"query":"<the raw query it was opened
// with>"}, then waits until the client closes it.
type endpoint struct {
	srv  *httptest.Server
	host string // host:port
	opts endpointOptions
	wg   sync.WaitGroup // the WebSocket handlers, which srv.Close does not join
}

// startEndpoint starts an endpoint and closes it when t ends.
func startEndpoint(t *testing.T, opts endpointOptions) *endpoint {
	t.Helper()
	e := &endpoint{opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("/json/version", e.version)
	mux.HandleFunc("/devtools/browser/abc", e.socket)
	e.srv = httptest.NewServer(mux)
	e.host = strings.TrimPrefix(e.srv.URL, "http://")
	t.Cleanup(e.close)
	return e
}

// close stops the endpoint and waits for its handlers.
func (e *endpoint) close() {
	e.srv.Close()
	e.wg.Wait()
}

func (e *endpoint) authorized(r *http.Request) bool {
	if e.opts.bearer {
		return r.Header.Get("Authorization") == "Bearer "+token
	}
	if r.URL.Query().Get("token") != token {
		return false
	}
	if e.opts.basicAuth {
		u, p, ok := r.BasicAuth()
		return ok && u == user && p == password
	}
	return true
}

func (e *endpoint) version(w http.ResponseWriter, r *http.Request) {
	if e.opts.stall {
		<-r.Context().Done()
		return
	}
	if !e.authorized(r) {
		http.Error(w, "bad or missing token", http.StatusUnauthorized)
		return
	}
	if e.opts.version != "" {
		_, _ = w.Write([]byte(e.opts.version))
		return
	}
	host := e.opts.answerHost
	if host == "" {
		host = r.Host
	}
	ws := "ws://" + host + "/devtools/browser/abc"
	if e.opts.ownQuery != "" {
		ws += "?" + e.opts.ownQuery
	}
	_ = json.NewEncoder(w).Encode(map[string]string{
		"Browser":              "Chrome/140.0.0.0",
		"webSocketDebuggerUrl": ws,
	})
}

func (e *endpoint) socket(w http.ResponseWriter, r *http.Request) {
	if !e.authorized(r) {
		http.Error(w, "bad or missing token", http.StatusUnauthorized)
		return
	}
	e.wg.Add(1)
	defer e.wg.Done()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, _ := json.Marshal(map[string]string{"query": r.URL.RawQuery})
	if c.Write(ctx, websocket.MessageText, msg) != nil {
		return
	}
	_, _, _ = c.Read(ctx) // until the client closes
}
