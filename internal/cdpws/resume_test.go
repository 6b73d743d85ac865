package cdpws_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/cdpws"
)

// fakeBrowser is a DevTools endpoint on 127.0.0.1 that answers as Chrome
// does the calls a resume makes: sessions are of their connection, and a
// session of an earlier connection is unknown on a new one. Test.hold is
// never answered; every other call is answered {}.
type fakeBrowser struct {
	srv *httptest.Server
	url string
	wg  sync.WaitGroup

	mu       sync.Mutex
	identity string               // the default browser context's ID
	targets  map[string]bool      // the page targets there are
	conns    []*fakeConn          // every connection, in order
	status   int                  // when not 0, the handshake's answer
	received map[int][]fakeCall   // the calls of each connection, by its index
	closeAs  websocket.StatusCode // the close frame cut sends; 0: none
}

type fakeConn struct {
	c        *websocket.Conn
	n        int
	sessions map[string]string // session → target
}

// fakeCall is a call as the browser received it.
type fakeCall struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
}

func startFakeBrowser(t *testing.T, targets ...string) *fakeBrowser {
	t.Helper()
	f := &fakeBrowser{identity: "CONTEXT-A", targets: map[string]bool{}, received: map[int][]fakeCall{}}
	for _, id := range targets {
		f.targets[id] = true
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.url = "ws://" + strings.TrimPrefix(f.srv.URL, "http://") + "/devtools/browser/x"
	t.Cleanup(func() {
		f.cut()
		f.srv.Close()
		f.wg.Wait()
	})
	return f
}

func (f *fakeBrowser) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	status := f.status
	f.mu.Unlock()
	if status != 0 {
		http.Error(w, "no such browser", status)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	f.wg.Add(1)
	defer f.wg.Done()
	f.mu.Lock()
	fc := &fakeConn{c: c, n: len(f.conns), sessions: map[string]string{}}
	f.conns = append(f.conns, fc)
	f.mu.Unlock()
	defer c.CloseNow()
	ctx := context.Background()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var call fakeCall
		if json.Unmarshal(data, &call) != nil {
			return
		}
		f.mu.Lock()
		f.received[fc.n] = append(f.received[fc.n], call)
		out := f.answer(fc, call)
		f.mu.Unlock()
		for _, m := range out {
			if c.Write(ctx, websocket.MessageText, m) != nil {
				return
			}
		}
	}
}

// answer is what the browser sends for call. f.mu is held.
func (f *fakeBrowser) answer(fc *fakeConn, call fakeCall) [][]byte {
	reply := func(result any) []byte {
		m := map[string]any{"id": call.ID, "result": result}
		if call.SessionID != "" {
			m["sessionId"] = call.SessionID
		}
		b, _ := json.Marshal(m)
		return b
	}
	fail := func(code int, msg string) []byte {
		m := map[string]any{"id": call.ID, "error": map[string]any{"code": code, "message": msg}}
		if call.SessionID != "" {
			m["sessionId"] = call.SessionID
		}
		b, _ := json.Marshal(m)
		return b
	}
	if call.SessionID != "" && fc.sessions[call.SessionID] == "" {
		return [][]byte{fail(-32001, "Session with given id not found.")}
	}
	switch call.Method {
	case "Test.hold":
		return nil
	case "Target.getBrowserContexts":
		return [][]byte{reply(map[string]any{"browserContextIds": []string{}, "defaultBrowserContextId": f.identity})}
	case "Target.attachToTarget":
		var p struct {
			TargetID string `json:"targetId"`
		}
		_ = json.Unmarshal(call.Params, &p)
		if !f.targets[p.TargetID] {
			return [][]byte{fail(-32602, "No target with given id found")}
		}
		s := fmt.Sprintf("S%d-%s", fc.n, p.TargetID)
		fc.sessions[s] = p.TargetID
		ev, _ := json.Marshal(map[string]any{"method": "Target.attachedToTarget",
			"params": map[string]any{"sessionId": s, "targetInfo": map[string]any{"targetId": p.TargetID, "type": "page"}}})
		return [][]byte{ev, reply(map[string]any{"sessionId": s})}
	case "Runtime.evaluate":
		return [][]byte{reply(map[string]any{"result": map[string]any{"type": "string", "value": call.SessionID}})}
	}
	return [][]byte{reply(map[string]any{})}
}

// cut ends every connection, as a proxy that restarts does.
func (f *fakeBrowser) cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fc := range f.conns {
		if f.closeAs != 0 {
			_ = fc.c.Close(f.closeAs, "bye")
			continue
		}
		_ = fc.c.CloseNow()
	}
}

func (f *fakeBrowser) set(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// calls returns the calls connection n received.
func (f *fakeBrowser) calls(n int) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.received[n]...)
}

func (f *fakeBrowser) dials() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

// client is a driver on a Resumer: it sends calls and reads until their
// replies come, keeping the events.
type client struct {
	t       *testing.T
	r       *cdpws.Resumer
	next    int64
	events  []map[string]any
	resumes chan cdpws.Resume
}

func dialResumer(t *testing.T, f *fakeBrowser, window time.Duration) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cdpws.NewResumer(ctx, f.url, nil, cdpws.ResumeOptions{Window: window})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	c := &client{t: t, r: r, resumes: make(chan cdpws.Resume, 10)}
	r.Subscribe(cdpws.ResumeHooks{Resumed: func(rs cdpws.Resume) { c.resumes <- rs }})
	return c
}

// resumed reads on, past the drop, until the connection is resumed,
// keeping the events: a call's reply comes after the resume, whether the
// call went out before the drop was seen (then its answer says so) or
// after.
func (c *client) resumed() cdpws.Resume {
	c.t.Helper()
	c.reply(c.send("", "Browser.getVersion", nil))
	select {
	case rs := <-c.resumes:
		return rs
	case <-time.After(10 * time.Second):
		c.t.Fatal("not resumed within 10s")
		return cdpws.Resume{}
	}
}

// send sends a call and returns its ID.
func (c *client) send(session, method string, params any) int64 {
	c.next++
	m := map[string]any{"id": c.next, "method": method}
	if session != "" {
		m["sessionId"] = session
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	require.NoError(c.t, c.r.WriteText(b))
	return c.next
}

// reply reads until the reply to id, keeping the events before it.
func (c *client) reply(id int64) map[string]any {
	c.t.Helper()
	for {
		m := c.read()
		if m == nil {
			c.t.Fatalf("the connection ended before the reply to %d", id)
		}
		if v, ok := m["id"]; ok && int64(v.(float64)) == id {
			return m
		}
		if _, ok := m["method"]; ok {
			c.events = append(c.events, m)
		}
	}
}

// read reads one message within 10 s; nil when the connection ended.
func (c *client) read() map[string]any {
	c.t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := c.r.ReadText()
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			c.t.Logf("the connection ended: %v", res.err)
			return nil
		}
		var m map[string]any
		require.NoError(c.t, json.Unmarshal(res.data, &m))
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message within 10s")
		return nil
	}
}

// readErr reads until the connection ends and returns its error.
func (c *client) readErr() error {
	c.t.Helper()
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := c.r.ReadText(); err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		c.t.Fatal("the connection did not end within 10s")
		return nil
	}
}

// attach attaches to target as rod and chromedp do, returning the session.
func (c *client) attach(target string) string {
	res := c.reply(c.send("", "Target.attachToTarget", map[string]any{"targetId": target, "flatten": true}))
	return res["result"].(map[string]any)["sessionId"].(string)
}

// without is calls but those of method (resumed's, which races the drop).
func without(calls []fakeCall, method string) []fakeCall {
	var out []fakeCall
	for _, c := range calls {
		if c.Method != method {
			out = append(out, c)
		}
	}
	return out
}

func methods(calls []fakeCall) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Method+"@"+c.SessionID)
	}
	return out
}

// After a drop, the Resumer attaches again to the session's target, sends
// it the settings it had (not the actions), and the driver's session ID
// still reaches it.
func TestResumerSessions(t *testing.T) {
	t.Parallel()
	f := startFakeBrowser(t, "T1")
	c := dialResumer(t, f, 5*time.Second)
	s := c.attach("T1")
	assert.Equal(t, "S0-T1", s)
	c.reply(c.send(s, "Runtime.enable", nil))
	c.reply(c.send(s, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": "1"}))
	c.reply(c.send(s, "Runtime.evaluate", map[string]any{"expression": "2"}))
	c.reply(c.send(s, "Network.enable", nil))
	c.reply(c.send(s, "Network.disable", nil))
	f.cut()
	c.resumed()
	res := c.reply(c.send(s, "Runtime.evaluate", map[string]any{"expression": "3"}))
	assert.Equal(t, s, res["sessionId"], "the reply names the driver's session")
	assert.Equal(t, "S1-T1", res["result"].(map[string]any)["result"].(map[string]any)["value"], "sent on the new one")
	assert.Equal(t, []string{
		"Target.getBrowserContexts@", "Target.attachToTarget@",
		"Runtime.enable@S1-T1", "Page.addScriptToEvaluateOnNewDocument@S1-T1",
		"Runtime.evaluate@S1-T1",
	}, methods(without(f.calls(1), "Browser.getVersion")))
	cleared := false
	for _, ev := range c.events {
		cleared = cleared || ev["method"] == "Runtime.executionContextsCleared" && ev["sessionId"] == s
	}
	assert.True(t, cleared, "the contexts of the old session are gone: %v", c.events)
	assert.Equal(t, 1, c.r.Resumes())
}

// A call in flight at the drop is answered once the connection is resumed,
// with an error that says so; a call sent during the gap goes out after.
func TestResumerCallsInFlight(t *testing.T) {
	t.Parallel()
	f := startFakeBrowser(t, "T1")
	c := dialResumer(t, f, 5*time.Second)
	s := c.attach("T1")
	held := c.send(s, "Test.hold", nil)
	const during = 1000
	sent := make(chan error, 1)
	c.r.Subscribe(cdpws.ResumeHooks{Dropped: func(string) {
		// In the gap, as the drop is seen: held until the resume.
		sent <- c.r.WriteText([]byte(`{"id":1000,"sessionId":"` + s + `","method":"Runtime.evaluate","params":{"expression":"1"}}`))
		f.set(func() { f.status = 0 })
	}})
	f.set(func() { f.status = http.StatusServiceUnavailable })
	f.cut()
	res := c.reply(held)
	require.NoError(t, <-sent)
	e := res["error"].(map[string]any)
	assert.EqualValues(t, cdpws.DroppedCode, e["code"])
	assert.Contains(t, e["message"], "dropped during this call and was resumed after")
	assert.Equal(t, s, res["sessionId"])
	res = c.reply(during)
	assert.Nil(t, res["error"])
	assert.Equal(t, s, res["sessionId"])
}

// A target that went away during the gap is told to the driver as a
// detach and a destroyed target.
func TestResumerTargetGone(t *testing.T) {
	t.Parallel()
	f := startFakeBrowser(t, "T1", "T2")
	c := dialResumer(t, f, 5*time.Second)
	s1, s2 := c.attach("T1"), c.attach("T2")
	f.set(func() { delete(f.targets, "T2") })
	f.cut()
	rs := c.resumed()
	assert.Equal(t, 1, rs.Sessions)
	assert.Equal(t, 1, rs.Gone)
	c.reply(c.send(s1, "Runtime.evaluate", map[string]any{"expression": "1"}))
	var got []string
	for _, ev := range c.events {
		got = append(got, fmt.Sprint(ev["method"], ev["params"]))
	}
	assert.Contains(t, got, fmt.Sprint("Target.detachedFromTarget", map[string]any{"sessionId": s2, "targetId": "T2"}))
	assert.Contains(t, got, fmt.Sprint("Target.targetDestroyed", map[string]any{"targetId": "T2"}))
}

// The ends that are not resumed: another browser at the endpoint, the
// endpoint saying the browser is not there, a close the driver asked for,
// a close frame that ends the session, a window that passes.
func TestResumerGivesUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		window time.Duration
		before func(f *fakeBrowser, c *client)
		want   string
		dials  int
	}{
		{"another browser", 5 * time.Second, func(f *fakeBrowser, c *client) { f.identity = "CONTEXT-B" },
			"another browser answers at the endpoint", 2},
		{"endpoint says gone", 5 * time.Second, func(f *fakeBrowser, c *client) { f.status = http.StatusNotFound },
			"not resumed", 1},
		{"window passes", 300 * time.Millisecond, func(f *fakeBrowser, c *client) { f.status = http.StatusBadGateway },
			"not resumed within 300ms (", 1},
		{"close frame that ends the session", 5 * time.Second, func(f *fakeBrowser, c *client) { f.closeAs = websocket.StatusPolicyViolation },
			"close frame 1008", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := startFakeBrowser(t, "T1")
			c := dialResumer(t, f, tt.window)
			c.attach("T1")
			f.set(func() { tt.before(f, c) })
			f.cut()
			err := c.readErr()
			require.ErrorContains(t, err, tt.want)
			assert.Equal(t, tt.dials, f.dials(), "connections made")
			assert.Error(t, c.r.WriteText([]byte(`{"id":99,"method":"Browser.getVersion"}`)), "no call goes out after")
		})
	}
}

// A close the driver asked for is the browser's end, not a drop; and a
// close frame that says the server goes away is one.
func TestResumerCloses(t *testing.T) {
	t.Parallel()
	f := startFakeBrowser(t)
	c := dialResumer(t, f, 5*time.Second)
	c.reply(c.send("", "Browser.close", nil))
	f.cut()
	require.Error(t, c.readErr())
	assert.Equal(t, 1, f.dials())

	g := startFakeBrowser(t, "T1")
	g.closeAs = websocket.StatusGoingAway
	d := dialResumer(t, g, 5*time.Second)
	s := d.attach("T1")
	g.cut()
	d.resumed()
	res := d.reply(d.send(s, "Runtime.evaluate", map[string]any{"expression": "1"}))
	assert.Nil(t, res["error"])
	assert.Equal(t, 2, g.dials())
}
