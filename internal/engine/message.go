package engine

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// Message takes in one raw CDP message of the browser's connection, as a
// driver that reads the socket itself hands it over, before it reads the
// next: an event is applied to the Browser or to the tab of its session,
// anything else is ignored. Called in the order the messages arrive, on
// the goroutine that reads them, it keeps events ahead of the replies that
// follow them, so the driver needs no barrier. Like every intake method it
// never blocks and never sends a command.
//
// Chrome writes an event's method first; a message that starts otherwise
// (a reply, {"id":...}) costs a prefix check, and an event no rule reads
// costs a lookup of its method, before anything is decoded.
func (b *Browser) Message(data []byte) {
	if method, ok := leadingMethod(data); ok && !wantedBytes(method) {
		return
	}
	var m struct {
		ID        int64           `json:"id"`
		Method    string          `json:"method"`
		SessionID string          `json:"sessionId"`
		Params    json.RawMessage `json:"params"`
	}
	if bytes.HasPrefix(data, []byte(`{"id":`)) || json.Unmarshal(data, &m) != nil || m.ID != 0 || !wanted(m.Method) {
		return
	}
	if m.SessionID != "" {
		if t := b.Tab(m.SessionID); t != nil {
			if ev, ok := PageEvent(m.Method, m.Params); ok {
				t.Apply(ev)
			}
		}
		return
	}
	var p struct {
		TargetInfo *TargetInfo `json:"targetInfo"`
		TargetID   string      `json:"targetId"`
		SessionID  string      `json:"sessionId"`
		Status     string      `json:"status"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	switch m.Method {
	case "Target.targetCreated":
		if p.TargetInfo != nil {
			b.TargetCreated(*p.TargetInfo)
		}
	case "Target.targetInfoChanged":
		if p.TargetInfo != nil {
			b.TargetInfoChanged(*p.TargetInfo)
		}
	case "Target.targetCrashed":
		b.TargetCrashed(p.TargetID, p.Status)
	case "Target.targetDestroyed":
		b.TargetDestroyed(p.TargetID)
	case "Target.detachedFromTarget":
		b.DetachedFromTarget(p.SessionID)
	case "Browser.downloadWillBegin", "Browser.downloadProgress":
		if ev, ok := tabstate.Decode(m.Method, m.Params); ok {
			b.Download(ev)
		}
	}
}

// PageEvent decodes an event of a tab's own session into the state
// machine's. The Target domain's events on a tab's session are of the
// tab's child targets (its workers, its out-of-process iframes), never of
// the tab: they are no news of it.
func PageEvent(method string, params []byte) (tabstate.Event, bool) {
	if strings.HasPrefix(method, "Target.") {
		return nil, false
	}
	return tabstate.Decode(method, params)
}

// wanted reports whether an event of method is news to the engine.
func wanted(method string) bool {
	return tabstate.Methods[method] || method == "Target.targetCreated" || method == "Target.targetInfoChanged"
}

// wantedBytes is wanted for a method still in the message's bytes; the
// conversions in a map index and a comparison allocate nothing.
func wantedBytes(method []byte) bool {
	return tabstate.Methods[string(method)] || string(method) == "Target.targetCreated" ||
		string(method) == "Target.targetInfoChanged"
}

// leadingMethod reads the method of a message written as Chrome writes
// events, {"method":"Domain.name",...}; ok is false for any other shape.
func leadingMethod(data []byte) ([]byte, bool) {
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
