package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoDriver holds the layout: the engine imports neither rod nor
// chromedp, nor either adapter, so it sits beneath both.
func TestImportsNoDriver(t *testing.T) {
	for _, pkg := range []string{".", "../enginetest"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/go-rod/") || strings.HasPrefix(dep, "github.com/chromedp/") ||
				dep == "github.com/tabguard/tabguard" || strings.HasPrefix(dep, "github.com/tabguard/tabguard/chromedpguard") {
				t.Errorf("%s depends on %s: the engine must not know its drivers", pkg, dep)
			}
		}
	}
}
