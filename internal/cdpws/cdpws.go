// Package cdpws is a DevTools WebSocket connection on github.com/coder/websocket
// that never panics its reader: a close frame, bytes that are not a frame
// or not CDP JSON, and a reset end it with a [*ConnectionError] naming the
// reason. The rod and the chromedp backends both put their clients on it.
//
// [ResolveURL] and [Dial] take the endpoint a browser pool hands out, its
// token in the query string or its credentials in the user info, and send
// them on every request; no error of theirs quotes either.
package cdpws

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/tabguard/tabguard/tabstate"
)

// maxMessageBytes caps one message from the browser. Chrome's own receive
// buffer is 100 MB; a page's DOM far larger than that is cut in the page.
const maxMessageBytes = 256 << 20

// writeTimeout bounds one message to the browser: a write that a stalled
// connection holds up this long ends the connection.
const writeTimeout = 10 * time.Second

// ConnectionError reports that the connection to the browser ended, and
// why: a close frame (its code and text), bytes that are not a WebSocket
// frame or not CDP JSON (the first of them, quoted), a reset, or a
// heartbeat that went unanswered. It matches [tabstate.ErrBrowserGone].
type ConnectionError struct {
	// Reason says why, such as `close frame 1008 "session timed out"` or
	// `not a WebSocket frame: "HTTP/1.1 408 Request Timeout"`.
	Reason string
	// Err is the error beneath, if any.
	Err error
}

// Error reads like "browser connection lost: connection reset".
func (e *ConnectionError) Error() string { return "browser connection lost: " + e.Reason }

// Unwrap returns the error beneath.
func (e *ConnectionError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, tabstate.ErrBrowserGone) hold.
func (e *ConnectionError) Is(target error) bool { return target == tabstate.ErrBrowserGone }

// Conn is a DevTools WebSocket connection. A message that is not CDP JSON
// ends it with an error, as a close frame, a foreign frame and a reset do,
// and every later call gets the same error, so whoever asks next learns
// why. Its methods are safe for concurrent use, but for ReadText, which
// one reader calls.
type Conn struct {
	conn *websocket.Conn
	tail *tailConn // the bytes read last, to quote what a peer sent that was not a frame

	mu  sync.Mutex
	err *ConnectionError // set once the connection ended
}

// WriteText writes one text message.
func (t *Conn) WriteText(data []byte) error {
	if err := t.ended(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := t.conn.Write(ctx, websocket.MessageText, data); err != nil {
		return t.end(err)
	}
	return nil
}

// ReadText returns the next message, which is valid JSON, or the error that
// ended the connection.
func (t *Conn) ReadText() ([]byte, error) {
	if err := t.ended(); err != nil {
		return nil, err
	}
	typ, data, err := t.conn.Read(context.Background())
	switch {
	case err != nil:
		return nil, t.end(err)
	case typ != websocket.MessageText || !json.Valid(data):
		err := &ConnectionError{Reason: "a message that is not CDP JSON: " + quote(data)}
		t.fail(err)
		return nil, err
	}
	return data, nil
}

// Close ends the connection.
func (t *Conn) Close() error {
	t.fail(&ConnectionError{Reason: "closed by the program"})
	return nil
}

func (t *Conn) ended() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	return nil
}

// end records why the connection ended, from the error a read or write
// gave, and closes it; the first reason stays.
func (t *Conn) end(err error) error {
	t.fail(t.reason(err))
	return t.ended()
}

func (t *Conn) fail(err *ConnectionError) {
	t.mu.Lock()
	first := t.err == nil
	if first {
		t.err = err
	}
	t.mu.Unlock()
	if first {
		_ = t.conn.CloseNow()
	}
}

// reason tells why a read or write failed.
func (t *Conn) reason(err error) *ConnectionError {
	var ce websocket.CloseError
	switch {
	case errors.As(err, &ce):
		r := "close frame " + strconv.Itoa(int(ce.Code))
		if ce.Reason != "" {
			r += " " + strconv.Quote(ce.Reason)
		}
		return &ConnectionError{Reason: r, Err: err}
	case errors.Is(err, syscall.ECONNRESET):
		return &ConnectionError{Reason: "connection reset", Err: err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return &ConnectionError{Reason: "connection closed without a close frame", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &ConnectionError{Reason: "a message to the browser was not taken in " + writeTimeout.String(), Err: err}
	}
	if b := t.tail.last(); len(b) > 0 {
		// The library failed on bytes that are no frame: quote them, as a
		// pool that writes an HTTP error into the upgraded socket does.
		return &ConnectionError{Reason: "not a WebSocket frame: " + quote(foreign(b)), Err: err}
	}
	return &ConnectionError{Reason: err.Error(), Err: err}
}

// foreign returns, of the bytes read last, where a plain-text answer such
// as "HTTP/1.1 408 Request Timeout" starts, else the last 64 of them.
func foreign(b []byte) []byte {
	if i := bytes.LastIndex(b, []byte("HTTP/")); i >= 0 {
		return b[i:]
	}
	return b[max(0, len(b)-64):]
}

// quote shows the first line, at most 64 bytes, of b.
func quote(b []byte) string {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 64 {
		b = b[:64]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	return strconv.Quote(string(b))
}

// tailConn is a net.Conn that keeps the last bytes read from it.
type tailConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 512

func (c *tailConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.buf = append(c.buf, p[:n]...)
		if len(c.buf) > tailBytes {
			c.buf = append(c.buf[:0], c.buf[len(c.buf)-tailBytes:]...)
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *tailConn) last() []byte {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf)
}

// HandshakeError is a WebSocket handshake the endpoint answered with an
// HTTP status other than 101.
type HandshakeError struct {
	Status int
	Err    error
}

// Error is the error beneath's text.
func (e *HandshakeError) Error() string { return e.Err.Error() }

// Unwrap returns the error beneath.
func (e *HandshakeError) Unwrap() error { return e.Err }

// Dial opens the WebSocket at wsURL within ctx, its handshake sent with
// header (nil: none), over a connection that keeps the bytes it read last.
// No error quotes header: it may hold a key.
func Dial(ctx context.Context, wsURL string, header http.Header) (*Conn, error) {
	t := &Conn{}
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
	conn, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: client, HTTPHeader: header})
	if err != nil {
		if t.tail != nil {
			_ = t.tail.Close()
		}
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			err = &HandshakeError{Status: resp.StatusCode, Err: err}
		}
		return nil, &RedactedError{URL: wsURL, Err: redactURLErrors(err)}
	}
	conn.SetReadLimit(maxMessageBytes)
	t.conn = conn
	return t, nil
}
