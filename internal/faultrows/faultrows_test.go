package faultrows_test

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/tabstate"
)

// backendCall matches a call of one backend's packages in a message, such
// as "(proto.PageBringToFront)" or "(page.BringToFront)".
var backendCall = regexp.MustCompile(`\((proto|page|runtime|debugger|target|chromedp)\.[A-Z]`)

// backendOnly are names one backend has and the other has not.
var backendOnly = []string{"chromedp", "go-rod"}

var sentinels = []error{
	tabstate.ErrTabCrashed, tabstate.ErrNoDocument, tabstate.ErrTabClosed, tabstate.ErrTabDiscarded,
	tabstate.ErrBrowserGone, tabstate.ErrDialogOpen, tabstate.ErrPaused, tabstate.ErrNavigated,
	tabstate.ErrTerminated, tabstate.ErrEvalTimeout, tabstate.ErrFrameCrashed, tabstate.ErrFrameDetached,
	tabstate.ErrSignInRequired, tabstate.ErrCredentialsRefused, tabstate.ErrCertificate, tabstate.ErrClientCertificate, tabstate.ErrDownload, tabstate.ErrFileChooser,
}

func TestRowsWellFormed(t *testing.T) {
	rules := []struct {
		name string
		ok   func(r faultrows.Row) bool
	}{
		{"has a name", func(r faultrows.Row) bool { return strings.TrimSpace(r.Name) == r.Name && r.Name != "" }},
		{"wants a tabstate sentinel or a result", func(r faultrows.Row) bool {
			if r.Want == nil {
				return true
			}
			for _, s := range sentinels {
				if r.Want == s {
					return true
				}
			}
			return false
		}},
		{"a timeout has a cause, and only a timeout", func(r faultrows.Row) bool {
			return (r.Want == tabstate.ErrEvalTimeout) == (r.Cause != tabstate.TimeoutUnknown)
		}},
		{"a fast row is no timeout", func(r faultrows.Row) bool { return !r.Fast || r.Want != tabstate.ErrEvalTimeout }},
		{"a timeout's message names its own limit", func(r faultrows.Row) bool {
			if r.Want != tabstate.ErrEvalTimeout {
				return true
			}
			for _, m := range r.Msg {
				if strings.Contains(m, "timed out after "+r.Timeout().String()) {
					return true
				}
			}
			return false
		}},
		{"runs on some backend", func(r faultrows.Row) bool { return r.Rod.Skip == "" || r.Chromedp.Skip == "" }},
		{"a skipped backend expects no message of its own", func(r faultrows.Row) bool {
			return (r.Rod.Skip == "" || len(r.Rod.Msg) == 0) && (r.Chromedp.Skip == "" || len(r.Chromedp.Msg) == 0)
		}},
		{"shared messages name no backend's call", func(r faultrows.Row) bool {
			for _, m := range r.Msg {
				if backendCall.MatchString(m) {
					return false
				}
				for _, name := range backendOnly {
					if strings.Contains(m, name) {
						return false
					}
				}
			}
			return true
		}},
		{"a row with a result wants no backend message", func(r faultrows.Row) bool {
			return r.Want != nil || len(r.Rod.Msg)+len(r.Chromedp.Msg) == 0
		}},
		{"a path is \"\", \"-\" or absolute", func(r faultrows.Row) bool {
			return r.Path == "" || r.Path == "-" || strings.HasPrefix(r.Path, "/")
		}},
	}
	rows := faultrows.Rows()
	require.NotEmpty(t, rows)
	seen := map[string]bool{}
	for _, r := range rows {
		assert.False(t, seen[r.Name], "row %q twice", r.Name)
		seen[r.Name] = true
		for _, rule := range rules {
			assert.True(t, rule.ok(r), "row %q: %s", r.Name, rule.name)
		}
	}
}

func TestMissing(t *testing.T) {
	all := map[string]bool{}
	for _, r := range faultrows.Rows() {
		all[r.Fault()] = true
	}
	without := func(name string) map[string]bool {
		m := map[string]bool{}
		for k := range all {
			if k != name {
				m[k] = true
			}
		}
		return m
	}
	with := func(name string) map[string]bool {
		m := without("")
		m[name] = true
		return m
	}
	tests := []struct {
		name string
		impl map[string]bool
		want []string
	}{
		{"every row", all, nil},
		{"a row left out", without("alert open"),
			[]string{"alert open: no chromedp implementation, and not marked as not run on chromedp"}},
		{"a row of no one's", with("alert opened twice"),
			[]string{"alert opened twice: a chromedp implementation with no shared row"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := faultrows.Missing(faultrows.Chromedp, tt.impl)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Missing() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeadedTwins: each headed row follows its headless row, the same row
// in a headed browser under a name with HeadedSuffix, whose fault is that
// row's; and a row of the backend's own browser keeps one of its own.
func TestHeadedTwins(t *testing.T) {
	rows := faultrows.Rows()
	twins, marked := 0, 0
	for i, r := range rows {
		if r.AlsoHeaded {
			marked++
		}
		if !r.Browser.IsHeaded() {
			assert.False(t, strings.HasSuffix(r.Name, faultrows.HeadedSuffix), "row %q: headless, named headed", r.Name)
			continue
		}
		twins++
		require.Positive(t, i, "row %q: a headed row first", r.Name)
		base := rows[i-1]
		assert.True(t, base.AlsoHeaded, "row %q: after %q, which is not marked AlsoHeaded", r.Name, base.Name)
		assert.Equal(t, base.Name+faultrows.HeadedSuffix, r.Name)
		assert.Equal(t, base.Name, r.Fault())
		want := faultrows.Headed
		if base.Browser != faultrows.Shared {
			want = faultrows.HeadedOwn
		}
		assert.Equal(t, want, r.Browser, "row %q", r.Name)
		r.Name, r.Browser, r.AlsoHeaded = base.Name, base.Browser, base.AlsoHeaded
		if diff := cmp.Diff(base, r, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
			t.Errorf("row %q differs from its headless row beyond name and browser (-headless +headed):\n%s", r.Name, diff)
		}
	}
	assert.Positive(t, twins, "headed rows")
	assert.Equal(t, marked, twins, "a headed row for each row marked AlsoHeaded")
	own := faultrows.Row{Browser: faultrows.Headed, Chromedp: faultrows.Diff{Dedicated: true}}
	assert.Equal(t, faultrows.HeadedOwn, own.BrowserOn(faultrows.Chromedp), "a headed row a backend runs in a browser of its own")
	assert.Equal(t, faultrows.Headed, own.BrowserOn(faultrows.Rod))
}

// TestREADMETables holds the failure tables of docs/failures.md to the
// rows: one line per row, in order, named as the subtests are.
func TestREADMETables(t *testing.T) {
	data, err := os.ReadFile("../../docs/failures.md")
	require.NoError(t, err)
	var names []string
	for _, r := range faultrows.Rows() {
		names = append(names, r.Name)
	}
	tests := []struct {
		backend faultrows.Backend
		heading string // the table is the first after it
	}{
		{faultrows.Rod, "## rod\n"},
		{faultrows.Chromedp, "## chromedp\n"},
	}
	for _, tt := range tests {
		t.Run(tt.backend.String(), func(t *testing.T) {
			got, err := tableNames(string(data), tt.heading)
			require.NoError(t, err)
			if diff := cmp.Diff(names, got); diff != "" {
				t.Errorf("docs/failures.md table after %q mismatch (-want +got):\n%s", strings.TrimSpace(tt.heading), diff)
			}
		})
	}
}

// tableNames returns the first column of the first table after heading,
// less its header and separator lines.
func tableNames(readme, heading string) ([]string, error) {
	i := strings.Index(readme, heading)
	if i < 0 {
		return nil, errors.New("no heading " + strings.TrimSpace(heading))
	}
	var names []string
	inTable := false
	for _, line := range strings.Split(readme[i:], "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		names = append(names, strings.TrimSpace(cells[1]))
	}
	if len(names) < 2 {
		return nil, errors.New("no table after " + strings.TrimSpace(heading))
	}
	return names[2:], nil
}

// The smoke matrix holds a row of each kind of fault, a headed row, and
// every row chromedp answers or recovers in its own way, in the matrix's
// order; the whole matrix is what a full run holds.
func TestSmoke(t *testing.T) {
	t.Setenv("TABGUARD_TEST_ALL", "")
	rows := faultrows.Rows()
	smoke := faultrows.Smoke(faultrows.Chromedp)
	var names []string
	for _, r := range smoke {
		names = append(names, r.Name)
	}
	t.Logf("smoke: %d of %d rows: %q", len(smoke), len(rows), names)
	assert.Less(t, len(smoke), len(rows)/2)

	at := map[string]int{}
	for i, r := range rows {
		at[r.Name] = i
	}
	last, headed := -1, false
	for _, r := range smoke {
		i, ok := at[r.Name]
		require.True(t, ok, "%s is no row of the matrix", r.Name)
		assert.Greater(t, i, last, "%s out of the matrix's order", r.Name)
		last = i
		headed = headed || r.Browser.IsHeaded()
	}
	assert.True(t, headed, "no headed row")
	for _, r := range rows {
		if d := r.Chromedp; len(d.Msg) > 0 || d.Note != "" {
			assert.Contains(t, names, r.Name, "a row chromedp answers in its own way")
		}
	}
	for _, first := range []string{"renderer crash idle", "alert open", "debugger statement while paused", "tab closed"} {
		assert.Contains(t, names, first, "the first row of its kind")
	}

	assert.Equal(t, rows, faultrows.Matrix(faultrows.Rod), "rod runs the whole matrix")
	assert.Equal(t, smoke, faultrows.Matrix(faultrows.Chromedp))
	assert.Equal(t, 2, faultrows.PromptCycles())
	assert.Equal(t, 2, faultrows.RecoveryCycles())
	t.Setenv("TABGUARD_TEST_ALL", "1")
	assert.Equal(t, rows, faultrows.Matrix(faultrows.Chromedp), "a full run holds every row")
	assert.Equal(t, 20, faultrows.PromptCycles())
	assert.Equal(t, 5, faultrows.RecoveryCycles())
}
