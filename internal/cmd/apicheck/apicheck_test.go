package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const src = `package p

import "time"

const Max = 10

// An alias to another package's type lists as that type under its own
// name, and the type prints as the alias everywhere.
type Month = time.Month

const March = time.March

var ErrX error

type Options struct {
	Timeout time.Duration
	Month   time.Month
	Hook    func(name string) error
	hidden  int
}

type Kind uint8

func (k Kind) String() string { return "" }

type Watcher struct{ Options }

func (w *Watcher) Close() error { return nil }

type Sealed interface {
	Name() string
	seal()
}

func Do[T any](d time.Duration, fn func(d time.Duration) (T, error)) (T, error) { var t T; return t, nil }

func hidden() {}
`

func TestListing(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"const March Month = 3",
		"const Max untyped int = 10",
		"field Options.Hook func(string) error",
		"field Options.Month Month",
		"field Options.Timeout time.Duration",
		"field Watcher.Options Options (embedded)",
		"func Do[T any](time.Duration, func(time.Duration) (T, error)) (T, error)",
		"method (*Watcher) Close() error",
		"method (Kind) String() string",
		"method (Month) String() string",
		"method (Sealed) Name() string",
		"type Kind uint8",
		"type Month int",
		"type Options struct",
		"type Sealed interface (has unexported methods)",
		"type Watcher struct",
		"var ErrX error",
	}
	if diff := cmp.Diff(want, listing(pkg)); diff != "" {
		t.Errorf("listing() mismatch (-want +got):\n%s", diff)
	}
}

func TestCompare(t *testing.T) {
	golden := []string{
		"func Watch(*rod.Page) (*Watcher, error)",
		"method (*Watcher) Close() error",
		"field Options.EvalTimeout time.Duration",
	}
	tests := []struct {
		name   string
		got    []string
		ok     bool
		report []string // substrings the report must hold
	}{
		{"same", golden, true, nil},
		{"added", append([]string{"func Open() error"}, golden...), true, []string{"new: func Open() error", "run make api"}},
		{"removed", golden[1:], false, []string{"missing: func Watch"}},
		{"changed", []string{golden[0], "method (*Watcher) Close(context.Context) error", golden[2]}, false,
			[]string{"changed: method (*Watcher) Close() error", "now: method (*Watcher) Close(context.Context) error"}},
		{"receiver", []string{golden[0], "method (Watcher) Close() error", golden[2]}, false, []string{"changed: method (*Watcher) Close"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if ok := compare(&b, "api/p.txt", golden, tt.got); ok != tt.ok {
				t.Errorf("compare() = %v; want %v\n%s", ok, tt.ok, b.String())
			}
			for _, s := range tt.report {
				if !strings.Contains(b.String(), s) {
					t.Errorf("report lacks %q:\n%s", s, b.String())
				}
			}
			if tt.name == "same" && b.Len() != 0 {
				t.Errorf("report = %q; want none", b.String())
			}
		})
	}
}
