package faultrows_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestREADMEActionTable holds the README's table of actions to
// ActionRows: one line per row, in order, named as the subtests are.
func TestREADMEActionTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var names []string
	for _, r := range faultrows.ActionRows {
		names = append(names, r.Name)
	}
	got, err := tableNames(string(data), "### Actions\n")
	require.NoError(t, err)
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("README table after \"### Actions\" mismatch (-want +got):\n%s", diff)
	}
}
