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

var update = flag.Bool("update", false, "rewrite the state diagrams in ../docs/lifecycle.md from tabstate.Transitions and tabstate.FrameTransitions")

const readme = "../docs/lifecycle.md"

// TestREADMEDiagram fails when the diagram in docs/lifecycle.md is not the one
// Diagram draws from Transitions. To redraw it:
//
//	go test ./tabstate -run TestREADMEDiagram -update
func TestREADMEDiagram(t *testing.T) {
	checkREADMEBlock(t, "tabstate-diagram", tabstate.Diagram(tabstate.Transitions()))
}

// TestREADMEFrameDiagram fails when the frame diagram in docs/lifecycle.md
// is not the one FrameDiagram draws from FrameTransitions. To redraw it:
//
//	go test ./tabstate -run TestREADMEFrameDiagram -update
func TestREADMEFrameDiagram(t *testing.T) {
	checkREADMEBlock(t, "tabstate-frame-diagram", tabstate.FrameDiagram(tabstate.FrameTransitions()))
}

// checkREADMEBlock fails t when the block of docs/lifecycle.md between the
// markers <!-- name:start --> and <!-- name:end --> is not diagram in a
// mermaid fence, and rewrites it with -update.
func checkREADMEBlock(t *testing.T, name, diagram string) {
	t.Helper()
	start, end := "<!-- "+name+":start -->\n", "<!-- "+name+":end -->"
	doc, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte(start))
	j := bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q markers", readme, strings.TrimSpace(start), end)
	}
	i += len(start)
	want := "```mermaid\n" + diagram + "```\n"
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
	t.Errorf("the diagram in %s is stale: run go test ./tabstate -run %s -update (-want +got):\n%s", readme, t.Name(), cmp.Diff(want, got))
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

func TestFrameDiagramDeterministic(t *testing.T) {
	t.Parallel()
	trs := tabstate.FrameTransitions()
	want := tabstate.FrameDiagram(trs)
	for i := range 20 {
		if got := tabstate.FrameDiagram(trs); got != want {
			t.Fatalf("FrameDiagram() call %d differs from the first:\n%s", i, cmp.Diff(want, got))
		}
	}
	if !strings.HasPrefix(want, "stateDiagram-v2\n") {
		t.Errorf("FrameDiagram() = %q...; want a stateDiagram-v2", want[:min(len(want), 30)])
	}
	for _, p := range tabstate.FramePhases() {
		if !strings.Contains(want, p.String()) {
			t.Errorf("FrameDiagram() leaves out phase %v", p)
		}
	}
}
