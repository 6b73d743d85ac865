package cdpws

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// book is what a [Resumer] keeps of the driver's traffic to resume it:
// the calls in flight, the sessions and their targets, the settings each
// session was sent, and how the driver's session IDs map to the current
// connection's. The Resumer's mu guards it.
type book struct {
	pending   map[int64]pend
	sessions  map[string]*bsession // by the driver's session ID
	byReal    map[string]string    // the current connection's session ID → the driver's, where they differ
	browser   []setupCmd           // the settings of the browser's own session
	own       map[int64]string     // the Resumer's own calls in flight: their method
	nextOwn   int64
	browserID string // the browser's identity (identityMethod), once known
	// toSend and toDriver are what a session attached again needs: its
	// settings, sent on the connection, and the events that tell the
	// driver its earlier session's state is gone.
	toSend, toDriver [][]byte
	// closing says the driver asked the browser to close: the end of the
	// connection that follows is no drop.
	closing bool
}

// pend is a call of the driver's in flight.
type pend struct {
	session, method string
	params          json.RawMessage // kept for the calls whose success is kept (setupKey) or tracked
	queued          bool            // sent while the connection was down
}

// bsession is a session of the driver's.
type bsession struct {
	target string
	parent string // the driver's session it was auto-attached on; "" for the browser's
	real   string // its ID on the current connection
	setup  []setupCmd
	stale  bool // attached on an earlier connection, not attached again yet
}

// setupCmd is a setting sent on a session: kept by key, the latest wins.
type setupCmd struct {
	key, method string
	params      json.RawMessage
}

func newBook() book {
	return book{pending: map[int64]pend{}, sessions: map[string]*bsession{}, byReal: map[string]string{}, own: map[int64]string{}}
}

// header is the head of a driver's message.
type header struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
}

// sent notes a message the driver sent.
func (b *book) sent(data []byte, queued bool) {
	h, ok := head(data)
	if !ok || setupMethod(h.Method) {
		h = header{}
		if json.Unmarshal(data, &h) != nil {
			return
		}
	}
	if h.ID == 0 {
		return
	}
	if h.Method == "Browser.close" && h.SessionID == "" {
		b.closing = true
	}
	p := pend{session: h.SessionID, method: h.Method, queued: queued}
	if _, keep := setupKey(h.Method, h.Params); keep || tracked(h.Method) {
		p.params = bytes.Clone(h.Params)
	}
	b.pending[h.ID] = p
}

// head reads the ID, session and method of a message written as rod and
// chromedp write them, {"id":N,"sessionId":"S","method":"M",...} (the
// session may be missing), without decoding the params; ok is false for
// any other shape.
func head(data []byte) (header, bool) {
	var h header
	id, ok := leadingID(data)
	if !ok {
		return h, false
	}
	h.ID = id
	rest := data[len(`{"id":`)+len(strconv.FormatInt(id, 10)):]
	session := false
	if s, r, ok := field(rest, `,"sessionId":"`); ok {
		h.SessionID, rest, session = s, r, true
	}
	m, rest, ok := field(rest, `,"method":"`)
	if !ok || !session && bytes.Contains(rest, []byte(`"sessionId"`)) {
		return h, false // a session named after the method: decode it all
	}
	h.Method = m
	return h, true
}

// field reads a string field of no escapes at the start of data, written
// as prefix, then the string and its closing quote.
func field(data []byte, prefix string) (value string, rest []byte, ok bool) {
	if !bytes.HasPrefix(data, []byte(prefix)) {
		return "", data, false
	}
	data = data[len(prefix):]
	end := bytes.IndexByte(data, '"')
	if end < 0 || bytes.IndexByte(data[:end], '\\') >= 0 {
		return "", data, false
	}
	return string(data[:end]), data[end+1:], true
}

// setupMethod reports whether the params of a call of method are kept.
func setupMethod(method string) bool {
	_, keep := setupKey(method, nil)
	return keep || tracked(method)
}

// tracked says the reply to method changes the sessions.
func tracked(method string) bool {
	return method == "Target.attachToTarget" || method == "Target.detachFromTarget"
}

// setupKey says whether method is a setting a new session must be sent
// again, under which key: a domain's enable, auto-attach and target
// discovery, lifecycle events, the file chooser's interception, the
// download and permission policies, certificate errors, extra headers,
// emulation, bindings and scripts for new documents. An action (a click,
// a navigation, an eval) is never sent again.
func setupKey(method string, params json.RawMessage) (string, bool) {
	domain, name, ok := strings.Cut(method, ".")
	if !ok {
		return "", false
	}
	switch {
	case name == "enable":
		return method, true
	case domain == "Emulation" && strings.HasPrefix(name, "set"):
		return method, true
	}
	switch method {
	case "Target.setAutoAttach", "Target.setDiscoverTargets", "Page.setLifecycleEventsEnabled",
		"Page.setInterceptFileChooserDialog", "Page.setBypassCSP", "Page.setDownloadBehavior",
		"Security.setIgnoreCertificateErrors", "Network.setExtraHTTPHeaders", "Network.setUserAgentOverride",
		"Network.setCacheDisabled", "Network.setBlockedURLs", "Network.setBypassServiceWorker",
		"Runtime.setAsyncCallStackDepth", "Log.startViolationsReport":
		return method, true
	case "Browser.setDownloadBehavior", "Browser.grantPermissions", "Browser.resetPermissions", "Browser.setPermission":
		var p struct {
			Context string `json:"browserContextId"`
		}
		_ = json.Unmarshal(params, &p)
		if method == "Browser.resetPermissions" {
			return "Browser.grantPermissions|" + p.Context, true
		}
		if method == "Browser.setPermission" {
			return method + "|" + p.Context + "|" + string(params), true
		}
		return method + "|" + p.Context, true
	case "Page.addScriptToEvaluateOnNewDocument", "Runtime.addBinding":
		return method + "|" + string(params), true
	}
	return "", false
}

// keep records a setting on the session (the browser's when "").
func (b *book) keep(session, key, method string, params json.RawMessage) {
	list := &b.browser
	if s := b.sessions[session]; s != nil {
		list = &s.setup
	} else if session != "" {
		return
	}
	if domain, ok := strings.CutSuffix(method, ".disable"); ok {
		*list = dropKey(*list, domain+".enable")
		return
	}
	*list = dropKey(*list, key)
	if method == "Browser.resetPermissions" {
		return
	}
	*list = append(*list, setupCmd{key: key, method: method, params: params})
}

func dropKey(list []setupCmd, key string) []setupCmd {
	out := list[:0]
	for _, c := range list {
		if c.key != key {
			out = append(out, c)
		}
	}
	return out
}

// outgoing is data, a driver's message, with its session IDs those of the
// current connection.
func (b *book) outgoing(data []byte) []byte {
	if len(b.byReal) == 0 {
		return data
	}
	h, ok := head(data)
	if !ok || strings.HasPrefix(h.Method, "Target.") {
		h = header{}
		if json.Unmarshal(data, &h) != nil {
			return data
		}
	}
	out := data
	for _, id := range b.mentioned(h) {
		if s := b.sessions[id]; s != nil && s.real != id {
			out = bytes.ReplaceAll(out, quoted(id), quoted(s.real))
		}
	}
	return out
}

// mentioned is the session IDs a message names: its own, and for the
// Target domain the ones in its params.
func (b *book) mentioned(h header) []string {
	ids := []string{}
	if h.SessionID != "" {
		ids = append(ids, h.SessionID)
	}
	if strings.HasPrefix(h.Method, "Target.") {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(h.Params, &p) == nil && p.SessionID != "" {
			ids = append(ids, p.SessionID)
		}
	}
	return ids
}

func quoted(s string) []byte { return []byte(strconv.Quote(s)) }

// incoming takes in a message of the connection and returns it as the
// driver must see it; keep is false for one the driver must not see (a
// reply to the Resumer's own call, or a session attached again that the
// driver knows). stale says a missing object reads as a missing context
// (Resumer.staleObjects).
func (b *book) incoming(data []byte, stale bool) (out []byte, keep bool) {
	if id, ok := replyID(data); ok {
		return b.reply(id, data, stale)
	}
	method, ok := leadingMethodOf(data)
	if !ok {
		return b.translateIn(data), true
	}
	switch string(method) {
	case "Target.attachedToTarget":
		return b.attached(data)
	case "Target.detachedFromTarget":
		data = b.translateIn(data)
		var m struct {
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
		}
		if json.Unmarshal(data, &m) == nil {
			b.forget(m.Params.SessionID)
		}
		return data, true
	}
	return b.translateIn(data), true
}

// reply takes in the reply to call id.
func (b *book) reply(id int64, data []byte, stale bool) ([]byte, bool) {
	if method, own := b.own[id]; own {
		delete(b.own, id)
		if method == identityMethod && b.browserID == "" {
			b.browserID = browserIdentity(data)
		}
		return nil, false
	}
	p, ok := b.pending[id]
	if !ok {
		return b.translateIn(data), true
	}
	delete(b.pending, id)
	failed := replyFailed(data, id)
	if !failed {
		if key, ok := setupKey(p.method, p.params); ok {
			b.keep(p.session, key, p.method, p.params)
		} else if strings.HasSuffix(p.method, ".disable") {
			b.keep(p.session, "", p.method, nil)
		} else if p.method == "Target.attachToTarget" {
			b.attachReply(p, data)
		} else if p.method == "Target.detachFromTarget" {
			var q struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(p.params, &q) == nil {
				b.forget(q.SessionID)
			}
		}
	}
	data = b.translateIn(data)
	if failed && stale && p.method == "Runtime.callFunctionOn" {
		data = bytes.Replace(data, []byte(`"message":"Could not find object with given id"`),
			[]byte(`"message":"Cannot find context with specified id"`), 1)
	}
	return data, true
}

// attachReply learns the session a flat Target.attachToTarget made.
func (b *book) attachReply(p pend, data []byte) {
	var q struct {
		TargetID string `json:"targetId"`
		Flatten  bool   `json:"flatten"`
	}
	var r struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal(p.params, &q) != nil || !q.Flatten || json.Unmarshal(data, &r) != nil || r.Result.SessionID == "" {
		return
	}
	if b.sessions[r.Result.SessionID] == nil {
		b.sessions[r.Result.SessionID] = &bsession{target: q.TargetID, parent: p.session, real: r.Result.SessionID}
	}
}

// attached takes in Target.attachedToTarget: a new session, or one that a
// setting sent again (auto-attach) attached again, which the driver knows
// under its old ID.
func (b *book) attached(data []byte) ([]byte, bool) {
	var m struct {
		SessionID string `json:"sessionId"`
		Params    struct {
			SessionID  string `json:"sessionId"`
			TargetInfo struct {
				TargetID string `json:"targetId"`
			} `json:"targetInfo"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return data, true
	}
	parent := m.SessionID
	if d, ok := b.byReal[parent]; ok {
		parent = d
	}
	for drv, s := range b.sessions {
		if s.stale && s.target == m.Params.TargetInfo.TargetID && s.parent == parent {
			s.real, s.stale = m.Params.SessionID, false
			b.byReal[s.real] = drv
			b.replay(drv, s)
			return nil, false
		}
	}
	if b.sessions[m.Params.SessionID] == nil {
		b.sessions[m.Params.SessionID] = &bsession{target: m.Params.TargetInfo.TargetID, parent: parent, real: m.Params.SessionID}
	}
	return b.translateIn(data), true
}

// forget drops a session of the driver's and the ones attached on it.
func (b *book) forget(drv string) {
	s := b.sessions[drv]
	if s == nil {
		return
	}
	delete(b.sessions, drv)
	delete(b.byReal, s.real)
	for id, c := range b.sessions {
		if c.parent == drv {
			b.forget(id)
		}
	}
}

// translateIn is data with the current connection's session ID of the
// message, at its end as Chrome writes it, the driver's.
func (b *book) translateIn(data []byte) []byte {
	if len(b.byReal) == 0 {
		return data
	}
	const key = `"sessionId":"`
	i := bytes.LastIndex(data, []byte(key))
	if i < 0 {
		return data
	}
	start := i + len(key)
	end := bytes.IndexByte(data[start:], '"')
	if end < 0 {
		return data
	}
	drv, ok := b.byReal[string(data[start:start+end])]
	if !ok {
		return data
	}
	out := make([]byte, 0, len(data)+len(drv))
	out = append(out, data[:start]...)
	out = append(out, drv...)
	return append(out, data[start+end:]...)
}

// answerDropped answers every call of the driver's sent before the drop
// with an error that says so, and forgets them.
func (b *book) answerDropped(took time.Duration) [][]byte {
	var out [][]byte
	msg := "the connection to the browser dropped during this call and was resumed after " +
		took.Round(time.Millisecond).String() + ": the call may be sent again"
	for id, p := range b.pending {
		if p.queued {
			continue
		}
		delete(b.pending, id)
		m := map[string]any{"id": id, "error": map[string]any{"code": DroppedCode, "message": msg}}
		if p.session != "" {
			m["sessionId"] = p.session
		}
		data, _ := json.Marshal(m)
		out = append(out, data)
	}
	return out
}

// DroppedCode is the error code of the reply a [Resumer] gives a call in
// flight when the connection dropped: outside the ranges Chrome uses.
const DroppedCode = -32099

// ownCall returns a message for a call of the Resumer's own, whose reply
// the driver never sees.
func (b *book) ownCall(session, method string, params any) []byte {
	b.nextOwn--
	b.own[b.nextOwn] = method
	return ownMessage(b.nextOwn, session, method, params)
}

// ownMessage is a call's message.
func ownMessage(id int64, session, method string, params any) []byte {
	m := map[string]any{"id": id, "method": method}
	if raw, ok := params.(json.RawMessage); params != nil && (!ok || len(raw) > 0) {
		m["params"] = params
	}
	if session != "" {
		m["sessionId"] = session
	}
	data, _ := json.Marshal(m)
	return data
}

// event is an event's message, for the driver.
func event(method, session string, params any) []byte {
	m := map[string]any{"method": method, "params": params}
	if session != "" {
		m["sessionId"] = session
	}
	data, _ := json.Marshal(m)
	return data
}

// replay queues the settings of s, the driver's session drv attached
// again, to be sent on its new session, and tells the driver what the
// new session does not have: the execution contexts (Runtime enabled
// again reports those there are) and the DOM's node IDs.
func (b *book) replay(drv string, s *bsession) {
	for _, c := range s.setup {
		switch c.method {
		case "Runtime.enable":
			b.toDriver = append(b.toDriver, event("Runtime.executionContextsCleared", drv, struct{}{}))
		case "DOM.enable":
			b.toDriver = append(b.toDriver, event("DOM.documentUpdated", drv, struct{}{}))
		}
		b.toSend = append(b.toSend, b.ownCall(s.real, c.method, c.params))
	}
}

// replyID reads the ID of a reply: at once when Chrome wrote it
// (leadingID), else by decoding it.
func replyID(data []byte) (int64, bool) {
	if id, ok := leadingID(data); ok {
		return id, true
	}
	if !bytes.Contains(data, []byte(`"id"`)) {
		return 0, false
	}
	var m struct {
		ID     *int64 `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil || m.ID == nil || m.Method != "" {
		return 0, false
	}
	return *m.ID, true
}

// replyFailed reports whether data, the reply to id, is an error.
func replyFailed(data []byte, id int64) bool {
	if rest, ok := bytes.CutPrefix(data, []byte(`{"id":`+strconv.FormatInt(id, 10))); ok {
		return bytes.HasPrefix(rest, []byte(`,"error"`))
	}
	var m struct {
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(data, &m) == nil && len(m.Error) > 0
}

// leadingID reads the ID of a reply written as Chrome writes them,
// {"id":N,...}.
func leadingID(data []byte) (int64, bool) {
	const prefix = `{"id":`
	if !bytes.HasPrefix(data, []byte(prefix)) {
		return 0, false
	}
	rest := data[len(prefix):]
	n := 0
	for n < len(rest) && (rest[n] == '-' || rest[n] >= '0' && rest[n] <= '9') {
		n++
	}
	id, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	return id, err == nil
}

// leadingMethodOf reads the method of an event written as Chrome writes
// them, {"method":"Domain.name",...}.
func leadingMethodOf(data []byte) ([]byte, bool) {
	const prefix = `{"method":"`
	if !bytes.HasPrefix(data, []byte(prefix)) {
		return nil, false
	}
	rest := data[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return nil, false
	}
	return rest[:end], true
}

// browserIdentity reads the default browser context's ID from the reply
// to identityMethod.
func browserIdentity(data []byte) string {
	var r struct {
		Result struct {
			Default string `json:"defaultBrowserContextId"`
		} `json:"result"`
	}
	_ = json.Unmarshal(data, &r)
	return r.Result.Default
}
