// Command benchreport turns the output of the tabguard benchmarks into
// BENCHMARKS.md and checks each goal. It exits with status 1, naming each
// missed goal, when one is missed or has no result. scripts/bench runs it.
//
//	benchreport -in bench.txt -out BENCHMARKS.md [-load "0.52 0.86 0.45"]
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "", "benchmark output to read")
	out := flag.String("out", "BENCHMARKS.md", "report to write")
	load := flag.String("load", "", "load average when the run started")
	elapsed := flag.String("elapsed", "", "how long the run took")
	flag.Parse()
	if err := run(*in, *out, *load, *elapsed); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
}

func run(in, out, load, elapsed string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := parse(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", in, err)
	}
	m := machine(res, load, elapsed)
	verdicts := check(res)
	if err := os.WriteFile(out, []byte(render(m, res, verdicts, string(raw))), 0o644); err != nil {
		return err
	}
	missed := 0
	for _, v := range verdicts {
		if v.met {
			fmt.Printf("met:    %s (measured %s)\n", v.goal.text, v.measured)
		}
	}
	for _, v := range verdicts {
		if !v.met {
			fmt.Fprintf(os.Stderr, "missed goal: %s (measured %s)\n", v.goal.text, v.measured)
			missed++
		}
	}
	fmt.Printf("wrote %s: %d of %d goals met\n", out, len(verdicts)-missed, len(verdicts))
	if missed > 0 {
		os.Exit(1)
	}
	return nil
}
