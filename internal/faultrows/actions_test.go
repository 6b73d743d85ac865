package faultrows_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestREADMEActionTable holds the table of actions in docs/actions.md to
// ActionRows: one line per row, in order, named as the subtests are.
func TestREADMEActionTable(t *testing.T) {
	data, err := os.ReadFile("../../docs/actions.md")
	require.NoError(t, err)
	var names []string
	for _, r := range faultrows.ActionRows {
		names = append(names, r.Name)
	}
	got, err := tableNames(string(data), "### What Watcher.Act answers\n")
	require.NoError(t, err)
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("docs/actions.md table after \"### What Watcher.Act answers\" mismatch (-want +got):\n%s", diff)
	}
}
