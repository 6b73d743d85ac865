package tabguard

import (
	"github.com/go-rod/rod/lib/cdp"
	"github.com/tabguard/tabguard/internal/cdpws"
)

// ConnectionError reports that the connection to the browser ended, and
// why: a close frame (its code and text), bytes that are not a WebSocket
// frame or not CDP JSON (the first of them, quoted), a reset, or a
// heartbeat that went unanswered. It matches [ErrBrowserGone]. Its Reason
// field says why, such as `close frame 1008 "session timed out"` or
// `not a WebSocket frame: "HTTP/1.1 408 Request Timeout"`.
type ConnectionError = cdpws.ConnectionError

// transport puts rod's client (cdp.WebSocketable) on a cdpws connection,
// whose reader never hands rod anything but CDP JSON.
type transport struct{ *cdpws.Conn }

var _ cdp.WebSocketable = transport{}

// Send writes one text message; rod sends only text.
func (t transport) Send(data []byte) error { return t.WriteText(data) }

// Read returns the next message or the error that ended the connection.
func (t transport) Read() ([]byte, error) { return t.ReadText() }
