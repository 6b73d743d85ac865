package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

// TestCheckAction refuses an action that names no action, no element or
// both kinds of element, with ErrInvalidArgument and the remedy.
func TestCheckAction(t *testing.T) {
	bad := []tabstate.Action{
		{},
		{Kind: "tap", Selector: "#t"},
		{Kind: tabstate.ActionClick},
		{Kind: tabstate.ActionClick, Selector: "#t", Ref: "e1"},
		{Kind: tabstate.ActionClick, Ref: "e1", Frame: "F"},
		{Kind: tabstate.ActionPress, Key: "Ctrl+A"},
		{Kind: tabstate.ActionPress, Key: ""},
		{Kind: tabstate.ActionPress, Key: "\n"},
		{Kind: tabstate.ActionSelect, Selector: "select"},
	}
	for _, a := range bad {
		if err := checkAction(a); !errors.Is(err, tabstate.ErrInvalidArgument) {
			t.Errorf("checkAction(%+v) = %v; want ErrInvalidArgument", a, err)
		}
	}
	good := []tabstate.Action{
		{Kind: tabstate.ActionClick, Selector: "#t"},
		{Kind: tabstate.ActionFill, Ref: "f1e2", Text: ""},
		{Kind: tabstate.ActionPress, Key: "Enter"},
		{Kind: tabstate.ActionPress, Key: "é", Selector: "input"},
		{Kind: tabstate.ActionSelect, Selector: "select", Values: []string{"a"}},
		{Kind: tabstate.ActionScroll, Selector: "#t", Frame: "F"},
	}
	for _, a := range good {
		if err := checkAction(a); err != nil {
			t.Errorf("checkAction(%+v) = %v", a, err)
		}
	}
}

// TestInputs: each kind sends the CDP input a user's hand would.
func TestInputs(t *testing.T) {
	types := func(a tabstate.Action) []string {
		var got []string
		for _, in := range inputs(a, 10, 20) {
			switch p := in.params.(type) {
			case mouseEvent:
				got = append(got, p.Type+"/"+p.Button)
			case keyEvent:
				got = append(got, p.Type+"/"+p.Key)
			default:
				got = append(got, in.method)
			}
		}
		return got
	}
	tests := []struct {
		a    tabstate.Action
		want []string
	}{
		{tabstate.Action{Kind: tabstate.ActionClick}, []string{"mousePressed/left", "mouseReleased/left"}},
		{tabstate.Action{Kind: tabstate.ActionDoubleClick}, []string{"mousePressed/left", "mouseReleased/left", "mousePressed/left", "mouseReleased/left"}},
		{tabstate.Action{Kind: tabstate.ActionRightClick}, []string{"mousePressed/right", "mouseReleased/right"}},
		{tabstate.Action{Kind: tabstate.ActionHover}, []string{"mouseMoved/"}},
		{tabstate.Action{Kind: tabstate.ActionFill, Text: "hi"}, []string{"Input.insertText"}},
		{tabstate.Action{Kind: tabstate.ActionFill}, []string{"rawKeyDown/Backspace", "keyUp/Backspace"}},
		{tabstate.Action{Kind: tabstate.ActionPress, Key: "Enter"}, []string{"keyDown/Enter", "keyUp/Enter"}},
		{tabstate.Action{Kind: tabstate.ActionPress, Key: "Tab"}, []string{"rawKeyDown/Tab", "keyUp/Tab"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, types(tt.a)); diff != "" {
			t.Errorf("inputs(%s) mismatch (-want +got):\n%s", tt.a.Kind, diff)
		}
	}
	k, _ := keyFor("q")
	if k != (key{code: "KeyQ", vk: 'Q', text: "q"}) {
		t.Errorf("keyFor(q) = %+v", k)
	}
}

// TestActionError: the reason comes first, the sentinel and the timeout
// both match, and an action that ran out of time says how long it had.
func TestActionError(t *testing.T) {
	a := tabstate.Action{Kind: tabstate.ActionClick, Selector: "#t"}
	last := &actionError{sentinel: tabstate.ErrNotActionable, reason: "disabled", what: what(a, `<button id="t">`), advice: adviceFor("disabled"), retry: true}
	err := gaveUp(a, 1500e6, last, context.DeadlineExceeded)
	want := `disabled: click on <button id="t"> not done in 1.5s: enable it first: the page enables it when what it needs is done`
	if err.Error() != want {
		t.Errorf("Error() = %q; want %q", err, want)
	}
	var te *tabstate.TimeoutError
	if !errors.Is(err, tabstate.ErrNotActionable) || !errors.Is(err, tabstate.ErrEvalTimeout) || !errors.As(err, &te) || te.Op != "click" {
		t.Errorf("%v matches neither ErrNotActionable nor a click's *TimeoutError", err)
	}
	refused := errors.New("refused")
	if got := gaveUp(a, 0, last, refused); got != refused {
		t.Errorf("gaveUp with a refusal = %v; want the refusal", got)
	}
	if got := gaveUp(a, 0, nil, context.Canceled); got != context.Canceled {
		t.Errorf("gaveUp with nothing seen = %v; want ctx's error", got)
	}
	if w := what(tabstate.Action{Kind: tabstate.ActionFill, Ref: "e3"}, ""); w != "fill on e3" {
		t.Errorf("what = %q", w)
	}
}
