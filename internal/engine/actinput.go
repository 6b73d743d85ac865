package engine

import (
	"sort"
	"unicode/utf8"

	"github.com/tabguard/tabguard/tabstate"
)

// input is one CDP Input command.
type input struct {
	method string
	params any
}

// mouseEvent is Input.dispatchMouseEvent's params.
type mouseEvent struct {
	Type       string  `json:"type"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Button     string  `json:"button,omitempty"`
	Buttons    int     `json:"buttons,omitempty"`
	ClickCount int     `json:"clickCount,omitempty"`
}

// keyEvent is Input.dispatchKeyEvent's params.
type keyEvent struct {
	Type                  string `json:"type"`
	Key                   string `json:"key,omitempty"`
	Code                  string `json:"code,omitempty"`
	Text                  string `json:"text,omitempty"`
	WindowsVirtualKeyCode int    `json:"windowsVirtualKeyCode,omitempty"`
}

// key is how Chrome's Input domain names one key.
type key struct {
	code string
	vk   int
	text string
}

// namedKeys are the keys Press takes by name, besides one character.
var namedKeys = map[string]key{
	"Enter":      {"Enter", 13, "\r"},
	"Tab":        {"Tab", 9, ""},
	"Escape":     {"Escape", 27, ""},
	"Backspace":  {"Backspace", 8, ""},
	"Delete":     {"Delete", 46, ""},
	"ArrowUp":    {"ArrowUp", 38, ""},
	"ArrowDown":  {"ArrowDown", 40, ""},
	"ArrowLeft":  {"ArrowLeft", 37, ""},
	"ArrowRight": {"ArrowRight", 39, ""},
	"Home":       {"Home", 36, ""},
	"End":        {"End", 35, ""},
	"PageUp":     {"PageUp", 33, ""},
	"PageDown":   {"PageDown", 34, ""},
	" ":          {"Space", 32, " "},
}

// keyNames lists the named keys, sorted.
func keyNames() []string {
	names := make([]string, 0, len(namedKeys))
	for n := range namedKeys {
		if n != " " {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// keyFor is the key that name names: a named key, or one printable
// character, which types itself.
func keyFor(name string) (key, bool) {
	if k, ok := namedKeys[name]; ok {
		return k, true
	}
	r, n := utf8.DecodeRuneInString(name)
	if n == 0 || n != len(name) || r == utf8.RuneError || r < ' ' || r == 0x7f {
		return key{}, false
	}
	switch {
	case r >= 'a' && r <= 'z':
		return key{"Key" + string(r-'a'+'A'), int(r - 'a' + 'A'), name}, true
	case r >= 'A' && r <= 'Z':
		return key{"Key" + name, int(r), name}, true
	case r >= '0' && r <= '9':
		return key{"Digit" + name, int(r), name}, true
	}
	return key{text: name}, true
}

// keyPress is the keyDown and keyUp of the key named name.
func keyPress(name string) []input {
	k, _ := keyFor(name)
	down := "rawKeyDown"
	if k.text != "" {
		down = "keyDown"
	}
	return []input{
		{"Input.dispatchKeyEvent", keyEvent{Type: down, Key: name, Code: k.code, Text: k.text, WindowsVirtualKeyCode: k.vk}},
		{"Input.dispatchKeyEvent", keyEvent{Type: "keyUp", Key: name, Code: k.code, WindowsVirtualKeyCode: k.vk}},
	}
}

// inputs are the CDP commands of a's input at x, y.
func inputs(a tabstate.Action, x, y float64) []input {
	mouse := func(typ, button string, buttons, count int) input {
		return input{"Input.dispatchMouseEvent", mouseEvent{Type: typ, X: x, Y: y, Button: button, Buttons: buttons, ClickCount: count}}
	}
	// A press needs no move before it: Chrome sends the page the
	// pointerover, mouseover and mouseenter of the element under a press
	// itself (measured on Chromium 156), and it answers a mouseMoved only
	// once the next frame has handled it, which is most of a click's time.
	switch a.Kind {
	case tabstate.ActionHover:
		return []input{mouse("mouseMoved", "", 0, 0)}
	case tabstate.ActionClick:
		return []input{mouse("mousePressed", "left", 1, 1), mouse("mouseReleased", "left", 0, 1)}
	case tabstate.ActionDoubleClick:
		return []input{mouse("mousePressed", "left", 1, 1), mouse("mouseReleased", "left", 0, 1),
			mouse("mousePressed", "left", 1, 2), mouse("mouseReleased", "left", 0, 2)}
	case tabstate.ActionRightClick:
		return []input{mouse("mousePressed", "right", 2, 1), mouse("mouseReleased", "right", 0, 1)}
	case tabstate.ActionFill:
		if a.Text == "" {
			return keyPress("Backspace") // deletes what Act selected
		}
		return []input{{"Input.insertText", map[string]string{"text": a.Text}}}
	case tabstate.ActionPress:
		return keyPress(a.Key)
	}
	return nil
}

// inputName is what an action's input is called in an error.
func inputName(k tabstate.ActionKind) string {
	switch k {
	case tabstate.ActionHover:
		return "mouse"
	case tabstate.ActionPress:
		return "key"
	case tabstate.ActionFill:
		return "text"
	}
	return "click"
}
