package chromedpguard_test

import (
	"strings"
	"testing"

	"github.com/tabguard/tabguard/internal/examplecover"
)

// TestExamplesCover fails, naming them, when an exported function, type or
// method of this package has no Example function of its own
// (examplecover.Missing says which names need one).
func TestExamplesCover(t *testing.T) {
	missing, names, err := examplecover.Missing(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d exported names have no Example; add:\n\t%s",
			len(missing), names, strings.Join(missing, "\n\t"))
	}
}
