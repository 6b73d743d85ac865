package tabstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

func TestSnapshotString(t *testing.T) {
	els := []tabstate.SnapshotElement{
		{Ref: "e1", Role: "textbox", Name: `say "hi"`, Value: "a\nb", Focused: true},
		{Ref: "f2e3", Role: "button", Name: "Menu", Expanded: "true", Disabled: true},
		{Ref: "e4", Role: "checkbox", Checked: "true"},
	}
	tests := []struct {
		name string
		s    tabstate.Snapshot
		want string
	}{
		{"whole", tabstate.Snapshot{Elements: els, Shown: 3, Total: 3},
			"e1 textbox \"say \\\"hi\\\"\" value=\"a\\nb\" [focused]\nf2e3 button \"Menu\" [disabled] [expanded]\ne4 checkbox [checked]\n"},
		{"first window", tabstate.Snapshot{Elements: els[:1], Shown: 1, Total: 3, NextOffset: 1},
			"e1 textbox \"say \\\"hi\\\"\" value=\"a\\nb\" [focused]\nshowing 1 of 3 elements: read on with Offset 1\n"},
		{"later window", tabstate.Snapshot{Elements: els[1:2], Shown: 1, Total: 3, Offset: 1, NextOffset: 2},
			"f2e3 button \"Menu\" [disabled] [expanded]\nshowing 1 of 3 elements from Offset 1: read on with Offset 2\n"},
		{"skipped", tabstate.Snapshot{Skipped: []tabstate.SkippedFrame{{ID: "F", URL: "http://u:pw@h/", Reason: "frame crashed"}}},
			"frame F (http://u:xxxxx@h/) left out: frame crashed\n"},
		{"empty", tabstate.Snapshot{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.s.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
