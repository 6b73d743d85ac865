package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const report = `# Benchmarks

## 1. Many watched tabs

| figure | value |
|---|---|
| tabs | 200 |

## 2. Healthy eval overhead

| figure | value |
|---|---|

A note.

## 3. Start over a slow link

| one-way delay | WatchBrowser |
|---|---|
| 50 ms | 2.062 RTT |

## Raw output

` + "```" + `
BenchmarkScale-2   	       6	4110195297 ns/op	         0.9707 cpu-ratio
PASS
` + "```" + `
`

func TestLinkPlots(t *testing.T) {
	links := []link{
		{"Start over a slow link", "Round trips", "docs/bench/slow.svg"},
		{"Many watched tabs", "CPU", "docs/bench/tabs.svg"},
	}
	got, err := linkPlots(report, "docs/bench", links)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(report, "| tabs | 200 |\n", "| tabs | 200 |\n\n![CPU](docs/bench/tabs.svg)\n", 1)
	want = strings.Replace(want, "| 50 ms | 2.062 RTT |\n", "| 50 ms | 2.062 RTT |\n\n![Round trips](docs/bench/slow.svg)\n", 1)
	if got != want {
		t.Errorf("linkPlots() =\n%s\nwant\n%s", got, want)
	}
	again, err := linkPlots(got, "docs/bench", links)
	if err != nil {
		t.Fatal(err)
	}
	if again != got {
		t.Errorf("linking twice =\n%s\nwant it unchanged:\n%s", again, got)
	}
	none, err := linkPlots(got, "docs/bench", nil)
	if err != nil {
		t.Fatal(err)
	}
	if none != report {
		t.Errorf("linking no plot =\n%s\nwant the report without links:\n%s", none, report)
	}
}

func TestLinkPlotsNoSection(t *testing.T) {
	_, err := linkPlots(report, "docs/bench", []link{{"Renamed", "alt", "docs/bench/x.svg"}})
	if err == nil || !strings.Contains(err.Error(), `no section "Renamed"`) {
		t.Errorf("linkPlots() error = %v; want one naming the missing section", err)
	}
}

func TestRawOutput(t *testing.T) {
	got, err := rawOutput(report)
	if err != nil {
		t.Fatal(err)
	}
	want := "BenchmarkScale-2   \t       6\t4110195297 ns/op\t         0.9707 cpu-ratio\nPASS\n"
	if got != want {
		t.Errorf("rawOutput() = %q; want %q", got, want)
	}
	if _, err := rawOutput("# Benchmarks\n"); !errors.Is(err, errNoRaw) {
		t.Errorf("rawOutput() of a report without raw output: error = %v; want errNoRaw", err)
	}
}

// TestRun draws the plots of a report's raw output into a directory beside
// it, twice: the second run changes no byte of the report or of a plot.
func TestRun(t *testing.T) {
	raw, err := os.ReadFile("testdata/bench.txt")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Benchmarks\n")
	for i, f := range figures {
		b.WriteString("\n## " + string(rune('1'+i)) + ". " + f.section + "\n\n| figure | value |\n|---|---|\n")
	}
	b.WriteString("\n## Raw output\n\n```\n" + string(raw) + "```\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "BENCHMARKS.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	plots := filepath.Join(dir, "docs", "bench")
	if err := run(io.Discard, "", path, plots); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svgs := map[string][]byte{}
	for _, f := range figures {
		line := "![" + f.alt + "](docs/bench/" + f.file + ")"
		if n := strings.Count(string(first), line); n != 1 {
			t.Errorf("report has %q %d times; want once", line, n)
		}
		if svgs[f.file], err = os.ReadFile(filepath.Join(plots, f.file)); err != nil {
			t.Error(err)
		}
	}
	if err := run(io.Discard, "testdata/bench.txt", path, plots); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, first) {
		t.Errorf("a second run changed the report:\n%s", again)
	}
	for file, svg := range svgs {
		if again, _ := os.ReadFile(filepath.Join(plots, file)); !bytes.Equal(again, svg) {
			t.Errorf("a second run changed %s", file)
		}
	}

	// A run without BenchmarkScale leaves its plot out, and its link.
	var rest []string
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if !strings.HasPrefix(line, "BenchmarkScale-") {
			rest = append(rest, line)
		}
	}
	in := filepath.Join(dir, "bench.txt")
	if err := os.WriteFile(in, []byte(strings.Join(rest, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(io.Discard, in, path, plots); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plots, "tabs-cpu.svg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("tabs-cpu.svg of a run without BenchmarkScale: stat error = %v; want it gone", err)
	}
	if got, _ := os.ReadFile(path); strings.Contains(string(got), "tabs-cpu.svg") || !strings.Contains(string(got), "slow-link-start.svg") {
		t.Errorf("report of a run without BenchmarkScale:\n%s\nwant every link but tabs-cpu.svg's", got)
	}
}

// TestReportSections holds the repository's BENCHMARKS.md to a section for
// every figure: a title renamed in internal/cmd/benchreport must be
// renamed here too.
func TestReportSections(t *testing.T) {
	b, err := os.ReadFile("../../../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := sectionHeading.FindStringSubmatch(line); m != nil {
			titles[m[1]] = true
		}
	}
	for _, f := range figures {
		if !titles[f.section] {
			t.Errorf("BENCHMARKS.md has no section %q for %s", f.section, f.file)
		}
	}
}
