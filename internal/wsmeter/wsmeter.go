// Package wsmeter counts the bytes a rod connection moves over its DevTools
// WebSocket, so a benchmark can tell what a call costs on the wire.
package wsmeter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
)

// Meter is a [cdp.WebSocketable] that passes every message through rod's own
// [cdp.WebSocket] unchanged and counts its payload bytes. Frame headers (2 to
// 14 bytes a message) are not counted.
type Meter struct {
	ws    *cdp.WebSocket
	read  atomic.Int64
	reads atomic.Int64
	sent  atomic.Int64
	sends atomic.Int64
}

var _ cdp.WebSocketable = (*Meter)(nil)

// Dial opens a metered DevTools connection to wsURL. The caller should call
// Close when finished.
func Dial(ctx context.Context, wsURL string) (*Meter, error) {
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, wsURL, nil); err != nil {
		return nil, fmt.Errorf("dial %s: %w", wsURL, err)
	}
	return &Meter{ws: ws}, nil
}

// Send counts and sends one message. rod's WebSocket masks msg in place, so
// it is counted first.
func (m *Meter) Send(msg []byte) error {
	m.sent.Add(int64(len(msg)))
	m.sends.Add(1)
	return m.ws.Send(msg)
}

// Read reads one message and counts it.
func (m *Meter) Read() ([]byte, error) {
	msg, err := m.ws.Read()
	m.read.Add(int64(len(msg)))
	m.reads.Add(1)
	return msg, err
}

// Messages is the number of messages read from the browser so far: its
// events and its replies.
func (m *Meter) Messages() int64 { return m.reads.Load() }

// BytesRead is the payload bytes read from the browser so far.
func (m *Meter) BytesRead() int64 { return m.read.Load() }

// BytesSent is the payload bytes sent to the browser so far.
func (m *Meter) BytesSent() int64 { return m.sent.Load() }

// Requests is the number of messages sent to the browser so far: each is
// one CDP request.
func (m *Meter) Requests() int64 { return m.sends.Load() }

// Close closes the socket; rod's reader then ends, and with it every
// goroutine of the connection.
func (m *Meter) Close() error { return m.ws.Close() }

// Connect opens a second, metered rod connection to the browser whose
// user-data dir is dir, found through the DevToolsActivePort file Chromium
// writes there; ctx bounds the dial. Closing the Meter ends the connection,
// not the browser.
func Connect(ctx context.Context, dir string) (*rod.Browser, *Meter, error) {
	u, err := ActivePortURL(dir)
	if err != nil {
		return nil, nil, err
	}
	m, err := Dial(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	// The browser's context outlives ctx: rod stops delivering events when it ends.
	b := rod.New().Client(cdp.New().Start(m))
	if err := b.Connect(); err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("connect to %s: %w", u, err)
	}
	return b, m, nil
}

// ActivePortURL reads the browser's DevTools WebSocket URL from the
// DevToolsActivePort file in its user-data dir: a port line, then a path.
func ActivePortURL(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil {
		return "", fmt.Errorf("read the DevTools port: %w", err)
	}
	lines := strings.Fields(string(b))
	if len(lines) < 2 {
		return "", fmt.Errorf("read the DevTools port: want a port and a path in %q", b)
	}
	return "ws://127.0.0.1:" + lines[0] + lines[1], nil
}
