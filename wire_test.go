package tabguard_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// wire is rod's CDP client on a connection of its own to the shared
// browser, which counts the commands sent to each session and can hold a
// method's calls unanswered, as Chrome sometimes leaves them.
type wire struct {
	rod.CDPClient
	mu   sync.Mutex
	sent map[string]int  // session ID ("" for the browser): commands sent
	held map[string]bool // methods whose calls wait until their context ends
}

// newWire dials the shared browser; the connection closes when t ends.
func newWire(t *testing.T) *wire {
	t.Helper()
	conn, _, err := websocket.Dial(testbrowser.Context(t, 10*time.Second), testbrowser.Shared(t).URL, nil)
	require.NoError(t, err)
	conn.SetReadLimit(-1)
	t.Cleanup(func() { _ = conn.CloseNow() })
	return &wire{CDPClient: cdp.New().Start(ownTransport{conn}), sent: map[string]int{}, held: map[string]bool{}}
}

// browser is a rod browser on w.
func (w *wire) browser(t *testing.T) *rod.Browser {
	t.Helper()
	b := rod.New().Client(w)
	require.NoError(t, b.Connect())
	return b
}

// hold leaves every later call of method unanswered.
func (w *wire) hold(method string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held[method] = true
}

// sentTo is how many commands went to session so far.
func (w *wire) sentTo(session string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sent[session]
}

// Call counts the command, then sends it, or holds it.
func (w *wire) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	w.mu.Lock()
	w.sent[sessionID]++
	held := w.held[method]
	w.mu.Unlock()
	if held {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return w.CDPClient.Call(ctx, sessionID, method, params)
}
