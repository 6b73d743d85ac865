package main

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// results holds what `go test -bench` printed: each benchmark's metrics by
// unit, and the header lines (goos, goarch, cpu).
type results struct {
	metrics map[string]map[string]float64
	header  map[string]string
}

// procs is the -N GOMAXPROCS suffix the testing package adds to names.
var procs = regexp.MustCompile(`-\d+$`)

// parse reads benchmark output. A result line is a name, an iteration
// count, then value-unit pairs; anything else is ignored.
func parse(r io.Reader) (*results, error) {
	res := &results{metrics: map[string]map[string]float64{}, header: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, key := range []string{"goos", "goarch", "cpu", "pkg"} {
			if v, ok := strings.CutPrefix(line, key+": "); ok {
				res.header[key] = strings.TrimSpace(v)
			}
		}
		f := strings.Fields(line)
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
		res.metrics[procs.ReplaceAllString(f[0], "")] = m
	}
	return res, sc.Err()
}

// get returns a benchmark's metric and whether it was reported.
func (r *results) get(bench, unit string) (float64, bool) {
	v, ok := r.metrics[bench][unit]
	return v, ok
}
