package examplecover_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tabguard/tabguard/internal/examplecover"
)

// Missing names what go doc would show with no Example: a func, a type
// whose method has one, a method of a pointer receiver; not a var, an
// alias, an unexported func, nor a name whose Example has a suffix.
func TestMissing(t *testing.T) {
	missing, names, err := examplecover.Missing("testdata/pkg")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ExampleG", "ExampleT", "ExampleT_N"}, missing); diff != "" {
		t.Errorf("Missing (-want +got):\n%s", diff)
	}
	if names != 6 {
		t.Errorf("names = %d, want 6 (F, G, I, T, T_M, T_N)", names)
	}
}
