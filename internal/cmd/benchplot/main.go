// Command benchplot draws the series of the tabguard benchmarks as SVG plots
// and links each into its section of BENCHMARKS.md, which
// internal/cmd/benchreport writes from the same benchmark output.
// scripts/bench runs it after benchreport:
//
//	benchplot -in bench.txt -report BENCHMARKS.md -dir docs/bench
//
// Without -in it reads the benchmark output that the report keeps under
// "## Raw output", so the plots of a recorded run can be drawn again:
//
//	cd internal/cmd/benchplot && go run . -report ../../../BENCHMARKS.md -dir ../../../docs/bench
//
// It is a module of its own so that the plotting library never becomes a
// requirement of the tabguard module.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

func main() {
	in := flag.String("in", "", "benchmark output to read; empty reads the report's raw output")
	report := flag.String("report", "BENCHMARKS.md", "report to link the plots into")
	dir := flag.String("dir", "docs/bench", "directory to write the SVG files to")
	flag.Parse()
	if err := run(os.Stdout, *in, *report, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(2)
	}
}

// run draws the plots of the benchmark output in (or of the report's raw
// output, if in is empty) into dir, links them into the report and says
// what it did on w.
func run(w io.Writer, in, reportPath, dir string) error {
	report, err := os.ReadFile(reportPath)
	if err != nil {
		return err
	}
	var out []byte
	if in != "" {
		if out, err = os.ReadFile(in); err != nil {
			return err
		}
	} else {
		raw, err := rawOutput(string(report))
		if err != nil {
			return fmt.Errorf("%s: %w", reportPath, err)
		}
		out = []byte(raw)
	}
	res, err := parse(bytes.NewReader(out))
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(reportPath), dir)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var links []link
	for _, f := range figures {
		path := filepath.Join(dir, f.file)
		c := f.chart(res)
		if c.empty() {
			// A stale plot must not stand beside a section that has no result.
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			fmt.Fprintf(w, "no figures for %q: no plot\n", f.section)
			continue
		}
		svg, err := c.svg()
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, svg, 0o644); err != nil {
			return err
		}
		links = append(links, link{f.section, f.alt, rel + "/" + f.file})
		fmt.Fprintf(w, "wrote %s\n", path)
	}
	linked, err := linkPlots(string(report), rel, links)
	if err != nil {
		return fmt.Errorf("%s: %w", reportPath, err)
	}
	if linked != string(report) {
		if err := os.WriteFile(reportPath, []byte(linked), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "linked %d plots in %s\n", len(links), reportPath)
	return nil
}
