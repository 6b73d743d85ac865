package docs_test

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// project is the root module's path; every nested module's path is it
// plus the module's directory, so a package's path names its directory.
const project = "github.com/tabguard/tabguard"

// diagramBox is a box of the package diagram: a package (dir is its
// directory, "." for the root package) or a group of boxes.
type diagramBox struct {
	dir   string
	label string
	kids  []diagramBox
}

// diagramLayout places every package the diagram draws, in the order it
// draws them. The arrows come from the code; only this table is written
// by hand, and packageDiagram fails when it misses a package the code
// reaches or lists one it does not.
func diagramLayout() []diagramBox {
	pkg := func(dir, label string) diagramBox { return diagramBox{dir: dir, label: label} }
	group := func(label string, kids ...diagramBox) diagramBox { return diagramBox{label: label, kids: kids} }
	return []diagramBox{
		group("examples",
			pkg("examples/demo", "examples/demo"),
			pkg("examples/chromedp", "examples/chromedp"),
			group("example servers",
				pkg("examples/mcpserver", "examples/mcpserver"),
				pkg("examples/controlserver", "examples/controlserver")),
			pkg("internal/agentprompt", "internal/agentprompt")),
		group("adapters",
			group("drivers",
				pkg(".", "tabguard (rod)"),
				pkg("chromedpguard", "chromedpguard (chromedp v0.23+)"),
				pkg("chromedp015guard", "chromedp015guard (chromedp v0.9.5-v0.15)")),
			pkg("otelguard", "otelguard (OpenTelemetry)")),
		group("engine", pkg("internal/engine", "internal/engine")),
		group("transport", pkg("internal/cdpws", "internal/cdpws")),
		group("page scripts", pkg("internal/pagejs", "internal/pagejs")),
		group("state", pkg("tabstate", "tabstate"), pkg("tabtrace", "tabtrace (trace hook)")),
	}
}

// diagramUnit is what an arrow can start or end at: one package, or a
// group of two or more, standing for every package in it.
type diagramUnit struct {
	id   string
	pkgs []string
}

// packageDiagram draws the project's packages under the repository root
// as a Mermaid flowchart, without the code fence: the packages outside
// any internal directory, every package of the project they import
// (transitively), and their imports as arrows. Only non-test files count,
// so test-only helpers and tools no such package imports are left out.
//
// To stay readable it draws an arrow from or to a group where it stands
// for an import from every package in the one to every package in the
// other, and each import belongs to exactly one arrow: the picture gains
// or loses an arrow, or one arrow turns into several, whenever an import
// is added or removed. The same tree gives the same text, byte for byte.
func packageDiagram(root string) (string, error) {
	imports, err := projectImports(root)
	if err != nil {
		return "", err
	}
	return drawPackages(imports)
}

// drawPackages draws packageDiagram's picture of imports, which maps each
// package's directory to the directories of the project packages it
// imports.
func drawPackages(imports map[string][]string) (string, error) {
	reached, err := reachedPackages(imports)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	var units []diagramUnit // in the order the table draws them
	var errs []error
	placed := map[string]bool{}
	ids := map[string]bool{}
	var write func(box diagramBox, depth int) []string
	write = func(box diagramBox, depth int) []string {
		indent := strings.Repeat("    ", depth)
		id := nodeID(box)
		if ids[id] {
			errs = append(errs, fmt.Errorf("two boxes have the ID %s: rename one", id))
		}
		ids[id] = true
		if box.kids == nil {
			switch {
			case !reached[box.dir]:
				errs = append(errs, fmt.Errorf("the layout lists %s, which no drawn package is or imports: take it out", box.dir))
				return nil
			case placed[box.dir]:
				errs = append(errs, fmt.Errorf("the layout lists %s twice", box.dir))
				return nil
			}
			placed[box.dir] = true
			units = append(units, diagramUnit{id, []string{box.dir}})
			fmt.Fprintf(&b, "%s%s[\"%s\"]\n", indent, id, box.label)
			return []string{box.dir}
		}
		at := len(units)
		fmt.Fprintf(&b, "%ssubgraph %s [%s]\n", indent, id, box.label)
		var pkgs []string
		for _, k := range box.kids {
			pkgs = append(pkgs, write(k, depth+1)...)
		}
		fmt.Fprintf(&b, "%send\n", indent)
		if len(pkgs) > 1 {
			units = slices.Insert(units, at, diagramUnit{id, pkgs})
		}
		return pkgs
	}
	for _, box := range diagramLayout() {
		write(box, 1)
	}
	for dir := range reached {
		if !placed[dir] {
			errs = append(errs, fmt.Errorf("package %s is in no box of diagramLayout: place it", dir))
		}
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(x, y error) int { return strings.Compare(x.Error(), y.Error()) })
		return "", errors.Join(errs...)
	}
	for _, a := range diagramArrows(units, imports) {
		fmt.Fprintf(&b, "    %s --> %s\n", units[a[0]].id, units[a[1]].id)
	}
	return b.String(), nil
}

// reachedPackages returns the packages outside any internal directory and
// every project package they import, directly or not.
func reachedPackages(imports map[string][]string) (map[string]bool, error) {
	reached := map[string]bool{}
	var queue []string
	for dir := range imports {
		if !slices.Contains(strings.Split(dir, "/"), "internal") {
			reached[dir] = true
			queue = append(queue, dir)
		}
	}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		for _, imp := range imports[dir] {
			if _, ok := imports[imp]; !ok {
				return nil, fmt.Errorf("%s imports %s, which has no package in the tree", dir, imp)
			}
			if !reached[imp] {
				reached[imp] = true
				queue = append(queue, imp)
			}
		}
	}
	return reached, nil
}

// diagramArrows covers every import between the units' packages with
// arrows, each a pair of unit indexes: the pairs that stand for the most
// imports first, and an arrow only where all its imports exist and none is
// drawn yet. It returns them by source, then target, in the units' order.
func diagramArrows(units []diagramUnit, imports map[string][]string) [][2]int {
	var pairs [][2]int
	for i := range units {
		for j := range units {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	size := func(p [2]int) int { return len(units[p[0]].pkgs) * len(units[p[1]].pkgs) }
	slices.SortStableFunc(pairs, func(x, y [2]int) int { return size(y) - size(x) })
	drawn := map[[2]string]bool{}
	var arrows [][2]int
	for _, p := range pairs {
		full := true
		for _, from := range units[p[0]].pkgs {
			for _, to := range units[p[1]].pkgs {
				full = full && slices.Contains(imports[from], to) && !drawn[[2]string{from, to}]
			}
		}
		if !full {
			continue
		}
		for _, from := range units[p[0]].pkgs {
			for _, to := range units[p[1]].pkgs {
				drawn[[2]string{from, to}] = true
			}
		}
		arrows = append(arrows, p)
	}
	slices.SortFunc(arrows, func(x, y [2]int) int { return cmp.Or(x[0]-y[0], x[1]-y[1]) })
	return arrows
}

// nodeID is a box's Mermaid ID: its package's directory, or its group's
// label, spelled with letters, digits and underscores.
func nodeID(box diagramBox) string {
	switch {
	case box.kids != nil:
		return strings.ReplaceAll(box.label, " ", "_")
	case box.dir == ".":
		return "tabguard"
	}
	return strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(box.dir)
}

// projectImports maps the directory (relative to root, "." for root
// itself) of every package under root that has non-test Go files to the
// directories of the project packages those files import. It reads only
// the files' headers, as go/build does, with the build constraints of the
// running platform, and descends into every nested module but skips
// testdata and directories whose name starts with a dot or an underscore.
func projectImports(root string) (map[string][]string, error) {
	modules := map[string]string{} // directory -> module path
	imports := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		mod, err := modulePath(filepath.Join(p, "go.mod"))
		if err != nil {
			return err
		}
		if mod != "" {
			if want := path.Join(project, rel); mod != want {
				return fmt.Errorf("%s/go.mod names module %s, not %s: the diagram reads a package's directory off its path", rel, mod, want)
			}
			modules[rel] = mod
		}
		pkg, err := build.Default.ImportDir(p, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if len(pkg.GoFiles)+len(pkg.CgoFiles) == 0 {
			return nil // tests only, as docs itself
		}
		var deps []string
		for _, imp := range pkg.Imports {
			if imp == project {
				deps = append(deps, ".")
			} else if dep, ok := strings.CutPrefix(imp, project+"/"); ok {
				deps = append(deps, dep)
			}
		}
		imports[rel] = deps
		return nil
	})
	if err != nil {
		return nil, err
	}
	if modules["."] != project {
		return nil, fmt.Errorf("%s is not the root of module %s", root, project)
	}
	return imports, nil
}

// modulePath returns the module path a go.mod file declares, or "" when
// there is no such file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s declares no module", gomod)
}
