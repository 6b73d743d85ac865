package main

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// results holds what `go test -bench` printed: each benchmark's metrics by
// unit, and the benchmarks' names in the order they ran. It reads the
// output as internal/cmd/benchreport does, so that a plot and the table
// beside it come from the same figures.
type results struct {
	metrics map[string]map[string]float64
	names   []string
}

// procs is the -N GOMAXPROCS suffix the testing package adds to names.
var procs = regexp.MustCompile(`-\d+$`)

// parse reads benchmark output. A result line is a name, an iteration
// count, then value-unit pairs; anything else is ignored.
func parse(r io.Reader) (*results, error) {
	res := &results{metrics: map[string]map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			m[f[i+1]] = v
		}
		name := procs.ReplaceAllString(f[0], "")
		if _, seen := res.metrics[name]; !seen {
			res.names = append(res.names, name)
		}
		res.metrics[name] = m
	}
	return res, sc.Err()
}

// get returns a benchmark's metric and whether it was reported.
func (r *results) get(bench, unit string) (float64, bool) {
	v, ok := r.metrics[bench][unit]
	return v, ok
}

// rawHeading opens the section of BENCHMARKS.md that holds, in one fenced
// block, the benchmark output its tables were written from.
const rawHeading = "## Raw output"

// errNoRaw reports a report without its raw output.
var errNoRaw = errors.New(`no fenced block under "` + rawHeading + `": pass the benchmark output with -in`)

// rawOutput returns the benchmark output kept in a report's raw output
// section.
func rawOutput(report string) (string, error) {
	_, after, ok := strings.Cut(report, "\n"+rawHeading+"\n")
	if !ok {
		return "", errNoRaw
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		return "", errNoRaw
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return "", errNoRaw
	}
	return block + "\n", nil
}
