package tabguard

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
)

// maxMessageBytes caps one message from the browser. Chrome's own receive
// buffer is 100 MB; a page's DOM far larger than that is cut in the page.
const maxMessageBytes = 256 << 20

// Connect opens a rod browser over the DevTools endpoint at rawURL: a
// ws:// or wss:// URL, query string included (?token=...), as browser pools
// hand out, or an http://host:port endpoint, resolved through its
// /json/version as rod's launcher resolves one. ctx bounds the whole
// handshake; when it ends first, the socket is closed, so a pool that
// queued the request frees its slot.
//
// The browser's transport never panics. rod's own reader parses whatever
// the socket delivers as JSON and panics on anything else, as on the plain
// "HTTP/1.1 408 Request Timeout" that browserless writes into the upgraded
// socket when a session times out. Here a close frame, bytes that are not a
// WebSocket frame or not CDP JSON, and a reset end the connection with a
// [*ConnectionError] naming the reason, which every watcher of the browser
// reports as [ErrBrowserGone], calls in flight included.
//
// The caller should call the browser's Close when finished, which for a
// pool also ends the session.
func Connect(ctx context.Context, rawURL string) (*rod.Browser, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	wsURL, err := resolveURL(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	t, err := dial(ctx, wsURL)
	if err != nil {
		return nil, err
	}
	b := rod.New().Client(cdp.New().Start(t))
	// rod's Connect sends Target.setDiscoverTargets under the browser's own
	// context, which has no deadline: the socket's closing bounds it.
	done := make(chan error, 1)
	go func() { done <- b.Connect() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = t.Close()
		<-done
		err = ctx.Err()
	}
	if err != nil {
		_ = t.Close()
		return nil, &redactedError{url: wsURL, err: err}
	}
	return b, nil
}

// resolveURL returns the WebSocket URL of a DevTools endpoint: a ws:// or
// wss:// URL as it is, an http:// or https:// one through its /json/version.
func resolveURL(ctx context.Context, rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%w: DevTools URL %q: pass ws://host:port/... or http://host:port", ErrInvalidArgument, rawURL)
	}
	switch u.Scheme {
	case "ws", "wss":
		return rawURL, nil
	case "http", "https":
	default:
		return "", fmt.Errorf("%w: DevTools URL %q: the scheme must be ws, wss, http or https", ErrInvalidArgument, rawURL)
	}
	v := *u
	v.Path, v.RawQuery = "/json/version", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.String(), nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", v.String(), err)
	}
	defer res.Body.Close()
	var version struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %s", res.Status)
	}
	if err == nil {
		err = json.Unmarshal(body, &version)
	}
	if err == nil && version.WebSocketDebuggerURL == "" {
		err = errors.New("no webSocketDebuggerUrl in the answer")
	}
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", v.String(), err)
	}
	// Chrome names the address it listens on; keep the one the caller
	// reached it by, as rod's launcher does.
	w, err := url.Parse(version.WebSocketDebuggerURL)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", v.String(), err)
	}
	w.Host = u.Host
	if u.Scheme == "https" {
		w.Scheme = "wss"
	}
	return w.String(), nil
}

// dial opens the WebSocket within ctx, over a connection that keeps the
// bytes it read last.
func dial(ctx context.Context, wsURL string) (*transport, error) {
	t := &transport{}
	// The bytes kept are those the WebSocket library reads: above TLS.
	keep := func(c net.Conn, err error) (net.Conn, error) {
		if err != nil {
			return nil, err
		}
		t.tail = &tailConn{Conn: c}
		return t.tail, nil
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return keep((&net.Dialer{}).DialContext(ctx, network, addr))
		},
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return keep((&tls.Dialer{}).DialContext(ctx, network, addr))
		},
	}}
	conn, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		if t.tail != nil {
			_ = t.tail.Close()
		}
		return nil, &redactedError{url: wsURL, err: err}
	}
	conn.SetReadLimit(maxMessageBytes)
	t.conn = conn
	return t, nil
}

// redactedError is a failure to connect to url, told without url's query
// string, which may hold a pool's token: the errors beneath quote it.
type redactedError struct {
	url string
	err error
}

func (e *redactedError) Error() string {
	msg := "connect to " + e.url + ": " + e.err.Error()
	if i := strings.IndexByte(e.url, '?'); i >= 0 {
		msg = strings.ReplaceAll(msg, e.url[i+1:], "…")
	}
	return msg
}

func (e *redactedError) Unwrap() error { return e.err }
