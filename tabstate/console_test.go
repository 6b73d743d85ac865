package tabstate_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

// message decodes a console event as Chrome sends it and returns its line.
func message(t *testing.T, method, params string) tabstate.ConsoleMessage {
	t.Helper()
	ev, ok := tabstate.Decode(method, []byte(params))
	if !ok {
		t.Fatalf("Decode(%s, %s) = false; want an event", method, params)
	}
	switch e := ev.(type) {
	case tabstate.ConsoleAPICalled:
		return e.Message()
	case tabstate.ExceptionThrown:
		return e.Message()
	}
	t.Fatalf("Decode(%s) = %T; want a console event", method, ev)
	return tabstate.ConsoleMessage{}
}

// TestConsoleMessage decodes console events as Chromium 156 sent them
// (object IDs left out) and reads their lines as DevTools prints them.
func TestConsoleMessage(t *testing.T) {
	const page = "http://127.0.0.1:46141/"
	at := time.UnixMicro(1796674047061572)
	tests := []struct {
		name, method, params string
		want                 tabstate.ConsoleMessage
	}{
		{"primitives", "Runtime.consoleAPICalled",
			`{"type":"log","args":[{"type":"string","value":"hello"},{"type":"number","value":42,"description":"42"},` +
				`{"type":"object","subtype":"null","value":null},{"type":"undefined"},{"type":"number","unserializableValue":"NaN","description":"NaN"},` +
				`{"type":"bigint","unserializableValue":"10n","description":"10n"},{"type":"boolean","value":true},{"type":"string","value":"é"}],` +
				`"executionContextId":2,"timestamp":1796674047061.572,"stackTrace":{"callFrames":[{"functionName":"","scriptId":"3","url":"` + page + `","lineNumber":1,"columnNumber":8}]}}`,
			tabstate.ConsoleMessage{Type: "log", Text: "hello 42 null undefined NaN 10n true é", URL: page, Line: 2, Time: at}},
		{"objects by their previews", "Runtime.consoleAPICalled",
			`{"type":"info","args":[{"type":"object","className":"Object","description":"Object","preview":{"type":"object","description":"Object","overflow":false,` +
				`"properties":[{"name":"a","type":"number","value":"1"},{"name":"b","type":"string","value":"x"},{"name":"c","type":"object","value":"Object"}]}},` +
				`{"type":"object","subtype":"array","className":"Array","description":"Array(3)","preview":{"type":"object","subtype":"array","description":"Array(3)","overflow":false,` +
				`"properties":[{"name":"0","type":"number","value":"1"},{"name":"1","type":"string","value":"two"},{"name":"2","type":"number","value":"3"}]}},` +
				`{"type":"object","className":"Point","description":"Point","preview":{"type":"object","description":"Point","overflow":true,"properties":[{"name":"x","type":"number","value":"1"}]}},` +
				`{"type":"object","subtype":"map","className":"Map","description":"Map(1)","preview":{"type":"object","subtype":"map","description":"Map(1)","overflow":false,"properties":[{"name":"size","type":"number","value":"1"}]}},` +
				`{"type":"object","subtype":"node","className":"HTMLBodyElement","description":"body"},` +
				`{"type":"object","className":"Object","description":"Object"}],"executionContextId":2,"timestamp":0}`,
			tabstate.ConsoleMessage{Type: "info", Text: "{a: 1, b: 'x', c: Object} (3) [1, 'two', 3] Point {x: 1, …} Map(1) body Object"}},
		{"format specifiers", "Runtime.consoleAPICalled",
			`{"type":"warning","args":[{"type":"string","value":"%s and %d%% %i %f %o %c%x %s"},{"type":"string","value":"now"},{"type":"number","value":4.5},` +
				`{"type":"string","value":"no number"},{"type":"number","value":0.25},{"type":"object","description":"Object","preview":{"overflow":false,"properties":[]}},` +
				`{"type":"string","value":"color: red"}],"executionContextId":2,"timestamp":0}`,
			tabstate.ConsoleMessage{Type: "warning", Text: "now and 4% NaN 0.25 {} %x %s"}},
		{"format specifiers with arguments left", "Runtime.consoleAPICalled",
			`{"type":"log","args":[{"type":"string","value":"n=%d"},{"type":"number","value":7},{"type":"string","value":"more"}],"executionContextId":2,"timestamp":0}`,
			tabstate.ConsoleMessage{Type: "log", Text: "n=7 more"}},
		{"an error logged", "Runtime.consoleAPICalled",
			`{"type":"error","args":[{"type":"object","subtype":"error","className":"Error","description":"Error: bad\n    at ` + page + `:4:15",` +
				`"preview":{"type":"object","subtype":"error","overflow":false,"properties":[{"name":"message","type":"string","value":"bad"}]}}],"executionContextId":2,"timestamp":0,` +
				`"stackTrace":{"callFrames":[{"functionName":"","scriptId":"3","url":"` + page + `","lineNumber":3,"columnNumber":8}]}}`,
			tabstate.ConsoleMessage{Type: "error", Text: "Error: bad\n    at " + page + ":4:15", URL: page, Line: 4}},
		{"uncaught error", "Runtime.exceptionThrown",
			`{"timestamp":1796674047061.572,"exceptionDetails":{"exceptionId":1,"text":"Uncaught","lineNumber":4,"columnNumber":25,"scriptId":"3","url":"` + page + `",` +
				`"exception":{"type":"object","subtype":"error","className":"Error","description":"Error: boom\n    at ` + page + `:5:26"},"executionContextId":2}}`,
			tabstate.ConsoleMessage{Type: "exception", Text: "Uncaught Error: boom\n    at " + page + ":5:26", URL: page, Line: 5, Time: at}},
		{"uncaught rejection", "Runtime.exceptionThrown",
			`{"timestamp":0,"exceptionDetails":{"exceptionId":3,"text":"Uncaught (in promise)","lineNumber":5,"columnNumber":15,"url":"` + page + `",` +
				`"exception":{"type":"object","subtype":"error","className":"TypeError","description":"TypeError: nope"}}}`,
			tabstate.ConsoleMessage{Type: "exception", Text: "Uncaught (in promise) TypeError: nope", URL: page, Line: 6}},
		{"a string thrown", "Runtime.exceptionThrown",
			`{"timestamp":0,"exceptionDetails":{"exceptionId":2,"text":"Uncaught","lineNumber":6,"columnNumber":20,"url":"` + page + `","exception":{"type":"string","value":"plain"}}}`,
			tabstate.ConsoleMessage{Type: "exception", Text: "Uncaught plain", URL: page, Line: 7}},
		{"a syntax error, its text whole", "Runtime.exceptionThrown",
			`{"timestamp":0,"exceptionDetails":{"exceptionId":5,"text":"Uncaught SyntaxError: Unexpected token '}'","lineNumber":0,"columnNumber":3,"url":"` + page + `",` +
				`"exception":{"type":"object","subtype":"error","className":"SyntaxError","description":"SyntaxError: Unexpected token '}'"}}}`,
			tabstate.ConsoleMessage{Type: "exception", Text: "Uncaught SyntaxError: Unexpected token '}'", URL: page, Line: 1}},
		{"thrown by a script with no URL: the stack's", "Runtime.exceptionThrown",
			`{"timestamp":0,"exceptionDetails":{"exceptionId":4,"text":"Uncaught","lineNumber":0,"columnNumber":279,"scriptId":"10",` +
				`"stackTrace":{"callFrames":[{"functionName":"later","scriptId":"10","url":"` + page + `app.js","lineNumber":9,"columnNumber":279}]},` +
				`"exception":{"type":"object","subtype":"error","className":"Error","description":"Error: later"}}}`,
			tabstate.ConsoleMessage{Type: "exception", Text: "Uncaught Error: later", URL: page + "app.js", Line: 10}},
		{"no exception value", "Runtime.exceptionThrown",
			`{"timestamp":0,"exceptionDetails":{"exceptionId":6,"text":"Script error.","lineNumber":0,"columnNumber":0}}`,
			tabstate.ConsoleMessage{Type: "exception", Text: "Script error."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := message(t, tt.method, tt.params)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Message() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConsoleMessageCut cuts a long text and URL at 1 KiB, on a rune's
// boundary, with the bytes lost said at the end.
func TestConsoleMessageCut(t *testing.T) {
	tests := []struct {
		name, text string
		lost       int
	}{
		{"ascii", strings.Repeat("a", 5000), 5000 - 1024},
		{"é across the cut", strings.Repeat("a", 1023) + strings.Repeat("é", 100), 200},
		{"emoji across the cut", strings.Repeat("a", 1022) + "👩‍💻" + "tail", len("👩‍💻tail")},
		{"CJK across the cut", strings.Repeat("a", 1021) + strings.Repeat("日", 10), 30 - 3},
		{"just fits", strings.Repeat("b", 1024), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tabstate.ConsoleAPICalled{Type: "log", URL: "http://127.0.0.1/" + tt.text,
				Args: []tabstate.RemoteValue{{Type: "string", Value: []byte(`"` + tt.text + `"`)}}}
			m := ev.Message()
			for what, got := range map[string]string{"Text": m.Text, "URL": m.URL} {
				if !utf8.ValidString(got) {
					t.Errorf("%s is not valid UTF-8: %q", what, got)
				}
			}
			if tt.lost == 0 {
				if m.Text != tt.text {
					t.Errorf("Text = %q; want it whole", m.Text)
				}
				return
			}
			kept, mark, ok := strings.Cut(m.Text, "… (+")
			if !ok || !strings.HasPrefix(tt.text, kept) || len(kept) > 1024 {
				t.Fatalf("Text = %q; want at most 1024 bytes of the text and a cut mark", m.Text)
			}
			if want := strings.TrimSuffix(mark, " bytes)"); want != strconv.Itoa(len(tt.text)-len(kept)) || len(tt.text)-len(kept) != tt.lost {
				t.Errorf("Text says %q lost; want %d", mark, tt.lost)
			}
			if !strings.Contains(m.URL, "… (+") || len(m.URL) > 1024+len("… (+99999 bytes)") {
				t.Errorf("URL = %d bytes, %q...; want it cut at 1 KiB", len(m.URL), m.URL[:40])
			}
		})
	}
}

// TestConsoleTextStopsBuilding keeps a call of many large arguments to
// what a message keeps, not to the sum of its arguments.
func TestConsoleTextStopsBuilding(t *testing.T) {
	arg := tabstate.RemoteValue{Type: "string", Value: []byte(`"` + strings.Repeat("x", 600) + `"`)}
	args := make([]tabstate.RemoteValue, 1000)
	for i := range args {
		args[i] = arg
	}
	m := tabstate.ConsoleAPICalled{Type: "log", Args: args}.Message()
	if len(m.Text) > 1024+len("… (+99999 bytes)") {
		t.Errorf("len(Text) = %d; want about 1 KiB", len(m.Text))
	}
}
