package main

import (
	"fmt"
	"strings"
	"time"
)

// row is one case of the table: what tabguard returned and how long it
// took, both as measured, and whether the case met its expectation.
type row struct {
	name     string
	returned string
	took     string
	err      error // why the row missed its expectation; nil when it met it
}

// miss marks r as failed with err, keeping what was measured.
func (r row) miss(format string, args ...any) row {
	r.err = fmt.Errorf(format, args...)
	return r
}

// report is a run: where it ran and its rows.
type report struct {
	date        time.Time
	browserless string // the installed package's version
	node        string
	chromium    string // the product the pool's browser names
	chromiumBin string // the binary playwright-core's path leads to
	load        string // the 1, 5 and 15 minute load averages at the start, if known
	cores       int
	rows        []row
}

func (rep *report) failed() []row {
	var out []row
	for _, r := range rep.rows {
		if r.err != nil {
			out = append(out, r)
		}
	}
	return out
}

// markdown renders the line that says where the run happened and the table.
func (rep *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s by `scripts/test-pool`: browserless %s (npm `@browserless.io/browserless`, on Node %s) on 127.0.0.1 "+
		"in front of the system Chromium (`%s`, which names itself %s), pages from `net/http/httptest` on 127.0.0.1, tabguard on the `Connect` "+
		"transport; one run on %d cores (load average at the start: %s), times from `time.Since`.\n\n",
		rep.date.UTC().Format("2006-01-02 15:04 UTC"), rep.browserless, rep.node, rep.chromiumBin, rep.chromium, rep.cores, rep.load)
	b.WriteString("| case | what tabguard returned | time |\n|---|---|---|\n")
	for _, r := range rep.rows {
		returned := r.returned
		if r.err != nil {
			returned = "**missed its expectation: " + cell(r.err.Error()) + "**" + sep(returned) + returned
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.name, returned, r.took)
	}
	return strings.TrimRight(b.String(), "\n")
}

func sep(s string) string {
	if s == "" {
		return ""
	}
	return "; "
}

// code quotes an error's text for a table cell.
func code(err error) string {
	if err == nil {
		return "`nil`"
	}
	return "`" + strings.ReplaceAll(cell(err.Error()), "`", "'") + "`"
}

// cell keeps s on one line of a table and its pipes out of the columns.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// dur shows d in the unit that suits it.
func dur(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + dur(-d)
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
