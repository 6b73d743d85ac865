package main

import "fmt"

// verdict is a goal and what the run measured for it.
type verdict struct {
	goal     goal
	measured string
	met      bool
}

// check reads every goal against the results. A goal without a result
// (its benchmark failed or did not run) is missed.
func check(res *results) []verdict {
	var vs []verdict
	for _, s := range sections {
		for _, g := range s.goals {
			v, ok := res.get(g.bench, g.unit)
			switch {
			case !ok:
				vs = append(vs, verdict{g, "no result", false})
			case g.atMost:
				vs = append(vs, verdict{g, fmt.Sprintf(g.format, v), v <= g.limit})
			default:
				vs = append(vs, verdict{g, fmt.Sprintf(g.format, v), v >= g.limit})
			}
		}
	}
	return vs
}

// p99Note says whether the healthy eval p99 ratio counts: only when the
// A/A p99 ratio shows the tail noise within 10%.
func p99Note(res *results) string {
	aa, ok1 := res.get(healthy, "aa-p99-ratio")
	r, ok2 := res.get(healthy, "p99-ratio")
	if !ok1 || !ok2 {
		return ""
	}
	if aa >= 1/1.1 && aa <= 1.1 {
		return fmt.Sprintf("The p99 ratio %.3f counts: the A/A p99 ratio %.3f is within 10%%.", r, aa)
	}
	return fmt.Sprintf("The p99 ratio %.3f does not count: the A/A p99 ratio %.3f is outside 10%%, so tail noise alone exceeds any difference it could show.", r, aa)
}
