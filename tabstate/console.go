package tabstate

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ConsoleMessage is one line of a tab's console: a console call of the
// page (console.log, console.error, ...) or an exception no script caught.
type ConsoleMessage struct {
	// Type is the console call as Chrome names it ("log", "info",
	// "warning", "error", "debug", "assert", "trace", ...), or "exception"
	// for an uncaught exception.
	Type string
	// Text is what DevTools prints: the call's arguments joined by
	// spaces, with its format string (%s, %d, %o, ...) applied and an
	// object shown by its preview ({a: 1, b: 'x'}); for an exception,
	// "Uncaught" and the thrown value, with its stack. A text longer than
	// 1 KiB is cut there, on a character's boundary, and says how many
	// bytes it lost: "… (+3072 bytes)".
	Text string
	// URL is the script that made the call or threw, cut as Text is; empty
	// when Chrome did not say.
	URL string
	// Line is the 1-based line of the call or the throw in URL; 0 when
	// Chrome did not say.
	Line int
	// Time is when the page made the call or threw, by the browser's clock.
	Time time.Time
}

// ConsoleLog is what a tab keeps of its console since its main frame last
// committed a document: its last messages, oldest first, and how many
// older ones it dropped to keep within its bounds.
type ConsoleLog struct {
	Messages []ConsoleMessage
	Dropped  int
}

// ConsoleAPICalled is Runtime.consoleAPICalled: the page called a console
// method. Chrome sends it once the Runtime domain is enabled on the tab's
// session. URL and LineNumber (0-based, as in CDP) are of the call's top
// stack frame; Timestamp is in milliseconds since the epoch.
type ConsoleAPICalled struct {
	Type       string
	Args       []RemoteValue
	URL        string
	LineNumber int
	Timestamp  float64
}

// ExceptionThrown is Runtime.exceptionThrown: a script threw and nothing
// caught it. Text is Chrome's summary, such as "Uncaught" or "Uncaught
// (in promise)"; Exception is the thrown value, nil when Chrome sent none.
type ExceptionThrown struct {
	Text       string
	Exception  *RemoteValue
	URL        string
	LineNumber int
	Timestamp  float64
}

// RemoteValue is what a console message shows of a JavaScript value: the
// fields of a Runtime.RemoteObject that its text is made of.
type RemoteValue struct {
	// Type and Subtype are Chrome's: "string", "number", "object" with
	// "array", "null", "error", ...
	Type, Subtype string
	// Value is the JSON of a primitive value.
	Value json.RawMessage
	// UnserializableValue is a number JSON cannot hold: NaN, -0,
	// Infinity, or a bigint such as "1n".
	UnserializableValue string
	// Description is Chrome's description of an object: "Array(3)",
	// "Object", an error's stack.
	Description string
	// Preview is an object's first properties, when Chrome sent them.
	Preview *ValuePreview
}

// ValuePreview is Runtime.ObjectPreview: an object's first properties;
// Overflow says it has more.
type ValuePreview struct {
	Overflow   bool
	Properties []PropertyPreview
}

// PropertyPreview is Runtime.PropertyPreview: one property of an object's
// preview, its Value abbreviated by Chrome.
type PropertyPreview struct {
	Name, Type, Subtype, Value string
}

func (ConsoleAPICalled) isEvent() {}
func (ExceptionThrown) isEvent()  {}

// maxConsoleText is how many bytes of a message's text, or of its URL, a
// ConsoleMessage keeps.
const maxConsoleText = 1 << 10

// Message is the console line of the call.
func (e ConsoleAPICalled) Message() ConsoleMessage {
	return ConsoleMessage{Type: e.Type, Text: consoleText(e.Args), URL: cut(e.URL),
		Line: line(e.URL, e.LineNumber), Time: stamp(e.Timestamp)}
}

// Message is the console line of the exception, as DevTools prints it:
// "Uncaught Error: boom" and the error's stack.
func (e ExceptionThrown) Message() ConsoleMessage {
	text := e.Text
	if e.Exception != nil {
		thrown := e.Exception.text(true)
		if first, _, _ := strings.Cut(thrown, "\n"); !strings.HasSuffix(text, first) {
			text += " " + thrown
		}
	}
	return ConsoleMessage{Type: "exception", Text: cut(text), URL: cut(e.URL),
		Line: line(e.URL, e.LineNumber), Time: stamp(e.Timestamp)}
}

// consoleText is the arguments of a console call as DevTools prints
// them: a first string's format specifiers take the arguments after it,
// and the rest follow, separated by spaces. It stops building once the
// text is longer than a message keeps.
func consoleText(args []RemoteValue) string {
	var b strings.Builder
	rest := args
	if len(args) > 0 && args[0].Type == "string" {
		rest = format(&b, args[0].text(true), args[1:])
	}
	for _, a := range rest {
		if b.Len() > maxConsoleText {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.text(true))
	}
	return cut(b.String())
}

// format writes f with its specifiers replaced by args, as the console
// does, and returns the arguments no specifier took.
func format(b *strings.Builder, f string, args []RemoteValue) []RemoteValue {
	for {
		i := strings.IndexByte(f, '%')
		if i < 0 || i == len(f)-1 || b.Len() > maxConsoleText {
			b.WriteString(f)
			return args
		}
		b.WriteString(f[:i])
		spec := f[i+1]
		f = f[i+2:]
		switch {
		case spec == '%':
			b.WriteByte('%')
		case !strings.ContainsRune("sdifoOc", rune(spec)):
			b.WriteByte('%')
			b.WriteByte(spec)
		case len(args) == 0:
			b.WriteByte('%')
			b.WriteByte(spec)
		default:
			a := args[0]
			args = args[1:]
			switch spec {
			case 'c': // CSS: nothing to print
			case 'd', 'i':
				b.WriteString(a.number(true))
			case 'f':
				b.WriteString(a.number(false))
			default:
				b.WriteString(a.text(true))
			}
		}
	}
}

// text is v as the console prints it: a string as it is at the top
// level (top) and quoted within an object, an object by its preview.
func (v RemoteValue) text(top bool) string {
	switch {
	case v.UnserializableValue != "":
		return v.UnserializableValue
	case v.Type == "undefined":
		return "undefined"
	case v.Subtype == "null":
		return "null"
	case v.Type == "string":
		var s string
		if json.Unmarshal(v.Value, &s) != nil {
			s = v.Description
		}
		if top {
			return s
		}
		return "'" + s + "'"
	case v.Type == "object" && v.Preview != nil && (v.Subtype == "" || v.Subtype == "array" || v.Subtype == "typedarray"):
		return v.preview() // others, such as a node, a map or an error, by their description
	case v.Description != "":
		return v.Description
	}
	return string(v.Value)
}

// number is v as %d (integer) or %f prints it.
func (v RemoteValue) number(integer bool) string {
	if v.Type != "number" || v.UnserializableValue != "" {
		return "NaN"
	}
	f, err := strconv.ParseFloat(string(v.Value), 64)
	if err != nil {
		return "NaN"
	}
	if integer {
		return strconv.FormatFloat(float64(int64(f)), 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// preview is an object by its first properties: "(2) [1, 2]" for an
// array, "{a: 1, b: 'x'}" for a plain object, "Point {x: 1}" for another.
func (v RemoteValue) preview() string {
	var b strings.Builder
	array := v.Subtype != ""
	open, end := "{", "}"
	switch {
	case array:
		if i := strings.IndexByte(v.Description, '('); i >= 0 {
			b.WriteString(v.Description[i:] + " ") // "Array(2)", "Uint8Array(2)"
		}
		open, end = "[", "]"
	case v.Description != "" && v.Description != "Object":
		b.WriteString(v.Description + " ")
	}
	b.WriteString(open)
	for i, p := range v.Preview.Properties {
		if i > 0 {
			b.WriteString(", ")
		}
		if !array {
			b.WriteString(p.Name + ": ")
		}
		if p.Type == "string" {
			b.WriteString("'" + p.Value + "'")
		} else {
			b.WriteString(p.Value)
		}
	}
	if v.Preview.Overflow {
		if len(v.Preview.Properties) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("…")
	}
	b.WriteString(end)
	return b.String()
}

// cut is s cut to what a message keeps, on a rune's boundary, with the
// bytes it lost said at its end.
func cut(s string) string {
	if len(s) <= maxConsoleText {
		return s
	}
	n := maxConsoleText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (+" + strconv.Itoa(len(s)-n) + " bytes)"
}

// line is a 0-based CDP line as a 1-based one, or 0 when there is no
// script to count lines in.
func line(url string, n int) int {
	if url == "" && n == 0 {
		return 0
	}
	return n + 1
}

// stamp is a CDP timestamp, milliseconds since the epoch, as a time.
func stamp(ms float64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(int64(ms * 1000))
}

// decodeConsole builds a [ConsoleAPICalled] or an [ExceptionThrown] from
// its raw params.
func decodeConsole(method string, params []byte) (Event, bool) {
	type frames struct {
		CallFrames []struct {
			URL        string
			LineNumber int
		}
	}
	top := func(st *frames) (string, int) {
		if st == nil || len(st.CallFrames) == 0 {
			return "", 0
		}
		return st.CallFrames[0].URL, st.CallFrames[0].LineNumber
	}
	if method == "Runtime.consoleAPICalled" {
		var p struct {
			Type       string
			Args       []RemoteValue
			Timestamp  float64
			StackTrace *frames
		}
		if json.Unmarshal(params, &p) != nil {
			return nil, false
		}
		e := ConsoleAPICalled{Type: p.Type, Args: p.Args, Timestamp: p.Timestamp}
		e.URL, e.LineNumber = top(p.StackTrace)
		return e, true
	}
	var p struct {
		Timestamp        float64
		ExceptionDetails struct {
			Text       string
			URL        string
			LineNumber int
			StackTrace *frames
			Exception  *RemoteValue
		}
	}
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	d := p.ExceptionDetails
	e := ExceptionThrown{Text: d.Text, Exception: d.Exception, URL: d.URL, LineNumber: d.LineNumber, Timestamp: p.Timestamp}
	if e.URL == "" {
		e.URL, e.LineNumber = top(d.StackTrace)
	}
	return e, true
}
