package tabstate_test

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/tabstate"
)

var update = flag.Bool("update", false, "rewrite the state diagram in ../README.md from tabstate.Transitions")

const (
	readme       = "../README.md"
	diagramStart = "<!-- tabstate-diagram:start -->\n"
	diagramEnd   = "<!-- tabstate-diagram:end -->"
)

// TestREADMEDiagram fails when the diagram in the README is not the one
// Diagram draws from Transitions. To redraw it:
//
//	go test ./tabstate -run TestREADMEDiagram -update
func TestREADMEDiagram(t *testing.T) {
	doc, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte(diagramStart))
	j := bytes.Index(doc, []byte(diagramEnd))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q markers", readme, strings.TrimSpace(diagramStart), diagramEnd)
	}
	i += len(diagramStart)
	want := "```mermaid\n" + tabstate.Diagram(tabstate.Transitions()) + "```\n"
	got := string(doc[i:j])
	if got == want {
		return
	}
	if *update {
		out := append(append(append([]byte(nil), doc[:i]...), want...), doc[j:]...)
		if err := os.WriteFile(readme, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the diagram in %s is stale: run go test ./tabstate -run TestREADMEDiagram -update (-want +got):\n%s", readme, cmp.Diff(want, got))
}

func TestDiagramDeterministic(t *testing.T) {
	t.Parallel()
	trs := tabstate.Transitions()
	want := tabstate.Diagram(trs)
	for i := range 20 { // map order must not show
		if got := tabstate.Diagram(trs); got != want {
			t.Fatalf("Diagram() call %d differs from the first:\n%s", i, cmp.Diff(want, got))
		}
	}
	if !strings.HasPrefix(want, "stateDiagram-v2\n") {
		t.Errorf("Diagram() = %q...; want a stateDiagram-v2", want[:min(len(want), 30)])
	}
	for _, p := range tabstate.Phases() {
		if !strings.Contains(want, p.String()) {
			t.Errorf("Diagram() leaves out phase %v", p)
		}
	}
}
