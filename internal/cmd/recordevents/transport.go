package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/tabstate"
)

// message is one CDP message as it crossed the socket: an event the browser
// sent, or a command the recorder sent (Command), which marks a boundary.
type message struct {
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Command   bool            `json:"command,omitempty"`
}

// boundary reports whether a recording keeps a command the recorder sent:
// those are the scenario's steps.
func boundary(method string) bool {
	switch method {
	case "Page.navigate", "Page.reload", "Page.crash", "Page.handleJavaScriptDialog",
		"Runtime.evaluate", "Runtime.runIfWaitingForDebugger", "Target.closeTarget":
		return true
	}
	return false
}

// recorder is a DevTools socket that logs every message it carries, in the
// order it carried them. Chrome sends events and replies on one socket in
// the order it made them, so the log is the order Chrome sent them in.
type recorder struct {
	ws *cdp.WebSocket

	mu  sync.Mutex
	log []message // every event, and the boundary commands
}

// dial connects a recorder to b's DevTools socket, a second client beside
// the one testbrowser connected: the port is in the user-data dir.
func dial(ctx context.Context, b *testbrowser.Browser) (*recorder, error) {
	port, err := os.ReadFile(filepath.Join(b.Launcher.Get(flags.UserDataDir), "DevToolsActivePort"))
	if err != nil {
		return nil, err
	}
	lines := strings.Fields(string(port))
	if len(lines) != 2 {
		return nil, fmt.Errorf("read DevToolsActivePort: %q: want a port and a path", port)
	}
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, "ws://127.0.0.1:"+lines[0]+lines[1], nil); err != nil {
		return nil, err
	}
	return &recorder{ws: ws}, nil
}

// Send logs a boundary command and sends it.
func (r *recorder) Send(data []byte) error {
	var m struct {
		Method    string          `json:"method"`
		SessionID string          `json:"sessionId"`
		Params    json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) == nil && boundary(m.Method) {
		r.mu.Lock()
		r.log = append(r.log, message{Method: m.Method, SessionID: m.SessionID, Params: m.Params, Command: true})
		r.mu.Unlock()
	}
	return r.ws.Send(data)
}

// Read reads a message and logs it if it is an event.
func (r *recorder) Read() ([]byte, error) {
	data, err := r.ws.Read()
	if err != nil {
		return data, err
	}
	var m message
	if json.Unmarshal(data, &m) == nil && m.Method != "" {
		r.mu.Lock()
		r.log = append(r.log, m)
		r.mu.Unlock()
	}
	return data, nil
}

// Close closes the socket.
func (r *recorder) Close() error { return r.ws.Close() }

// mark returns how many messages are logged, for wait.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

// wait waits for an event logged at index from or later that match accepts,
// and returns it with the index after it.
func (r *recorder) wait(ctx context.Context, from int, what string, match func(message) bool) (message, int, error) {
	for {
		r.mu.Lock()
		for i := from; i < len(r.log); i++ {
			if m := r.log[i]; !m.Command && match(m) {
				r.mu.Unlock()
				return m, i + 1, nil
			}
		}
		from = len(r.log)
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return message{}, 0, fmt.Errorf("wait for %s: %w", what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// kept returns the log as a recording keeps it: the events of
// tabstate.Methods, the browser session's Target.targetCreated and
// Target.targetInfoChanged of iframe targets, and the boundary commands.
func (r *recorder) kept() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []message
	for _, m := range r.log {
		_, iframe := iframeTarget(m)
		if m.Command || tabstate.Methods[m.Method] || iframe && m.SessionID == "" {
			out = append(out, m)
		}
	}
	return out
}

// tail lists the last n messages logged, one a line, to say where a
// scenario stalled.
func (r *recorder) tail(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, m := range r.log[max(0, len(r.log)-n):] {
		fmt.Fprintf(&b, "\t%s %s %.200s\n", m.Method, m.SessionID, m.Params)
	}
	return b.String()
}
