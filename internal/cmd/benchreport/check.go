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

// crashNote splits the crash answer into Chrome's share and the library's.
func crashNote(res *results) string {
	report, ok1 := res.get(crash, "chrome-report-p95-ms")
	lag, ok2 := res.get(crash, "lag-p95-ms")
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("Watcher.Eval answers within %.2f ms of Chrome's crash report at p95; "+
		"the rest is the time Chrome takes to report the crash (p95 %.1f ms on this machine).", lag, report)
}

// tabsNote sets the Watcher tabs' slowdown beside the control tabs'.
func tabsNote(res *results) string {
	g, ok1 := res.get(tabs, "tabguard-p50-ratio")
	c, ok2 := res.get(tabs, "control-p50-ratio")
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("While one tab crashes, the Watcher tabs' median moves by a ratio of %.3f and the rod "+
		"control tabs' by %.3f: the difference between the two is the library's share.", g, c)
}

// truncateNote names what TruncateDOM allocates besides its result.
func truncateNote(res *results) string {
	a, ok := res.get(truncate, "100MB-allocs")
	if !ok || a <= 1 {
		return ""
	}
	return fmt.Sprintf("%.0f allocations a cut: the result, plus the two numbers of the notice, "+
		"which strconv.Itoa allocates; strconv.AppendInt into a stack buffer would leave only the result.", a)
}
