package docs_test

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the package diagram in building.md from the imports of the code")

const (
	buildingPage = "building.md"
	diagramStart = "<!-- packages-diagram:start -->\n"
	diagramEnd   = "<!-- packages-diagram:end -->"
)

// TestBuildingDiagram fails when the package diagram in docs/building.md
// is not the one packageDiagram draws from the imports of the code: an
// import arrow added or removed, a package added, moved or gone. To redraw
// it:
//
//	go test ./docs -run TestBuildingDiagram -update
func TestBuildingDiagram(t *testing.T) {
	diagram, err := packageDiagram("..")
	if err != nil {
		t.Fatalf("packageDiagram: %v", err)
	}
	doc, err := os.ReadFile(buildingPage)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte(diagramStart))
	j := bytes.Index(doc, []byte(diagramEnd))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q markers", buildingPage, strings.TrimSpace(diagramStart), diagramEnd)
	}
	i += len(diagramStart)
	want := "```mermaid\n" + diagram + "```\n"
	got := string(doc[i:j])
	if got == want {
		return
	}
	if *update {
		out := append(append(append([]byte(nil), doc[:i]...), want...), doc[j:]...)
		if err := os.WriteFile(buildingPage, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the package diagram in docs/%s is stale: run go test ./docs -run TestBuildingDiagram -update (-want +got):\n%s", buildingPage, cmp.Diff(want, got))
}

// TestPackageDiagramCopy draws a copy of the tree that holds only each
// package's imports, to show that the diagram reads nothing else.
func TestPackageDiagramCopy(t *testing.T) {
	imports, err := projectImports("..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module "+project+"\n")
	for dir, deps := range imports {
		var src strings.Builder
		src.WriteString("package p\n\nimport (\n")
		for _, dep := range deps {
			if dep == "." {
				src.WriteString("\t_ \"" + project + "\"\n")
			} else {
				src.WriteString("\t_ \"" + project + "/" + dep + "\"\n")
			}
		}
		src.WriteString(")\n")
		writeFile(t, filepath.Join(root, filepath.FromSlash(dir), "p.go"), src.String())
	}
	want, err := packageDiagram("..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := packageDiagram(root)
	if err != nil {
		t.Fatalf("packageDiagram of the copy: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the copy draws another diagram (-tree +copy):\n%s", diff)
	}
}

// TestPackageDiagramExact reads the diagram back, an arrow from or to a
// group standing for every package in it, and wants exactly the imports
// it was drawn from: for the tree as it is, with each of its imports
// removed, and with each import it lacks added.
func TestPackageDiagramExact(t *testing.T) {
	imports, err := projectImports("..")
	if err != nil {
		t.Fatal(err)
	}
	reached, err := reachedPackages(imports)
	if err != nil {
		t.Fatal(err)
	}
	edges := map[[2]string]bool{}
	for from := range reached {
		for _, to := range imports[from] {
			edges[[2]string{from, to}] = true
		}
	}
	drawn, err := drawPackages(imports)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(edges, readArrows(t, drawn)); diff != "" {
		t.Fatalf("the diagram reads back as other imports (-imports +diagram):\n%s", diff)
	}
	check := func(change string, edges map[[2]string]bool) {
		t.Helper()
		m := map[string][]string{}
		for e := range edges {
			m[e[0]] = append(m[e[0]], e[1])
		}
		for dir := range imports { // and the packages that import nothing
			if _, ok := m[dir]; !ok {
				m[dir] = nil
			}
		}
		d, err := drawPackages(m)
		if err != nil { // a package no longer reached: TestBuildingDiagram fails on the error
			return
		}
		if d == drawn {
			t.Errorf("%s: the diagram is unchanged", change)
		} else if diff := cmp.Diff(edges, readArrows(t, d)); diff != "" {
			t.Errorf("%s: the diagram reads back as other imports (-imports +diagram):\n%s", change, diff)
		}
	}
	changes := 0
	for e := range edges {
		m := maps.Clone(edges)
		delete(m, e)
		check(e[0]+" no longer imports "+e[1], m)
		changes++
	}
	for from := range reached {
		for to := range reached {
			if e := [2]string{from, to}; from != to && !edges[e] {
				m := maps.Clone(edges)
				m[e] = true
				check(from+" imports "+to, m)
				changes++
			}
		}
	}
	if changes < len(edges)+len(reached) {
		t.Errorf("only %d changes tried", changes)
	}
}

// readArrows reads a diagram's arrows back as imports, a group standing
// for every package in it.
func readArrows(t *testing.T, diagram string) map[[2]string]bool {
	t.Helper()
	dirs := map[string]string{} // package node ID -> directory
	var walk func(diagramBox)
	walk = func(box diagramBox) {
		if box.kids == nil {
			dirs[nodeID(box)] = box.dir
		}
		for _, k := range box.kids {
			walk(k)
		}
	}
	for _, box := range diagramLayout() {
		walk(box)
	}
	members := map[string][]string{} // node or group ID -> directories
	var open []string
	edges := map[[2]string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(diagram), "\n")[1:] {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "subgraph "):
			id, _, _ := strings.Cut(strings.TrimPrefix(line, "subgraph "), " ")
			open = append(open, id)
		case line == "end":
			open = open[:len(open)-1]
		case strings.Contains(line, " --> "):
			from, to, _ := strings.Cut(line, " --> ")
			for _, f := range members[from] {
				for _, g := range members[to] {
					if edges[[2]string{f, g}] {
						t.Errorf("the import %s -> %s is drawn twice", f, g)
					}
					edges[[2]string{f, g}] = true
				}
			}
		default:
			id, _, _ := strings.Cut(line, "[")
			dir, ok := dirs[id]
			if !ok {
				t.Fatalf("the diagram line %q names no package", line)
			}
			for _, g := range append(open, id) {
				members[g] = append(members[g], dir)
			}
		}
	}
	return edges
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
