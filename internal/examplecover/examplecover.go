// Package examplecover finds the exported names of a package that have
// no Example function of their own, for a test of each adapter package.
package examplecover

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Missing returns, sorted, the Example functions the package in dir lacks
// (as "ExampleT_M"), and how many of its names need one. It follows go
// doc's naming: ExampleF covers func F, ExampleT covers type T, ExampleT_M
// covers method M of T, each with an optional _suffix that starts with a
// lowercase letter. A type is covered only by ExampleT: an Example of one
// of its methods or of a constructor returning it does not count.
//
// Needing none: vars and consts; type aliases (such as a re-export of a
// tabstate type), whose methods belong to the aliased package; methods of
// unexported types and the methods of an interface, which go doc lists
// under no Example of their own. Generated files count like any other.
func Missing(dir string) (missing []string, names int, err error) {
	exported, err := exportedNames(dir)
	if err != nil {
		return nil, 0, err
	}
	covered, err := exampleTargets(dir)
	if err != nil {
		return nil, 0, err
	}
	for _, n := range exported {
		if !covered[n] {
			missing = append(missing, "Example"+n)
		}
	}
	return missing, len(exported), nil
}

// parseDir parses the .go files in dir whose test-ness is test.
func parseDir(dir string, test bool) ([]*ast.File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") != test {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// exportedNames returns, sorted, the names that need an Example, in go
// doc's form: F, T and T_M.
func exportedNames(dir string) ([]string, error) {
	files, err := parseDir(dir, false)
	if err != nil {
		return nil, err
	}
	types := map[string]bool{} // exported defined types, not aliases
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if ts.Name.IsExported() && !ts.Assign.IsValid() {
					types[ts.Name.Name] = true
				}
			}
		}
	}
	var names []string
	for name := range types {
		names = append(names, name)
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				names = append(names, fd.Name.Name)
				continue
			}
			if recv := recvName(fd.Recv.List[0].Type); types[recv] {
				names = append(names, recv+"_"+fd.Name.Name)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// recvName returns the type name of a receiver: T for T, *T, T[K] and *T[K].
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// exampleTargets returns the names the package's Example functions
// document: for ExampleT_M_suffix, T_M.
func exampleTargets(dir string) (map[string]bool, error) {
	files, err := parseDir(dir, true)
	if err != nil {
		return nil, err
	}
	targets := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Example") {
				continue
			}
			name := strings.TrimPrefix(fd.Name.Name, "Example")
			if i := strings.LastIndex(name, "_"); i >= 0 && isSuffix(name[i+1:]) {
				name = name[:i]
			}
			targets[name] = true
		}
	}
	return targets, nil
}

// isSuffix reports whether s is an Example's suffix: it starts with a
// lowercase letter, as go doc requires.
func isSuffix(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r != utf8.RuneError && unicode.IsLower(r)
}
