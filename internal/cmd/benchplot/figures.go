package main

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// figure is one plot of BENCHMARKS.md: the SVG file it is written to, the
// section whose figures it draws, and the image's alternative text.
type figure struct {
	file, section, alt string
	chart              func(*results) chart
}

// figures are the series of BENCHMARKS.md that a plot shows better than a
// table: a figure measured at three or more settings. The sections are
// named by their titles in internal/cmd/benchreport.
var figures = []figure{
	{"tabs-cpu.svg", "Many watched tabs", "CPU per CDP event against the tabs open, rod alone and watched by one BrowserWatcher", tabsCPU},
	{"crash-answer.svg", "Crash-to-answer latency", "Answer times of an eval in flight when its tab crashes, by percentile, on a log scale", crashAnswer},
	{"recovery.svg", "Recovery to the first eval", "Median time from a recovering call to the first eval that answers, Watcher.Eval beside rod's page.Eval, for each way of recovering", recovery},
	{"truncatedom.svg", "TruncateDOM scaling", "TruncateDOM's time a cut against the size of its input", truncateScaling},
	{"many-tabs-crashing.svg", "Many tabs, one crashing", "Eval times of the healthy tabs while one tab crashes and when none does, Watcher tabs beside rod control tabs", tabsCrashing},
	{"slow-link-start.svg", "Start over a slow link", "Round trips each step of a start takes against the link's one-way delay, the library's steps beside rod's", slowLinkStart},
}

func tabsCPU(res *results) chart {
	const bench = "BenchmarkScale"
	rod := keyed(res, bench, `^rod-(\d+)-ns/event$`, 1e-3)
	watched := keyed(res, bench, `^watched-(\d+)-ns/event$`, 1e-3)
	return chart{
		title: "CPU per CDP event, by tabs on one connection",
		x:     "tabs open", y: "CPU per event (µs)",
		ticks: xs(rod, watched),
		series: []series{
			{"rod alone", rod},
			{"watched by one BrowserWatcher", watched},
		},
	}
}

func crashAnswer(res *results) chart {
	const bench = "BenchmarkCrashToAnswer"
	pcts := []string{"p50", "p95", "p99"}
	at := func(prefix string) plotter.XYs {
		var pts plotter.XYs
		for i, p := range pcts {
			if v, ok := res.get(bench, prefix+p+"-ms"); ok {
				pts = append(pts, plotter.XY{X: float64(i), Y: v})
			}
		}
		return pts
	}
	return chart{
		title: "An eval in flight when its tab crashes",
		x:     "percentile over the crashes", y: "time (ms, log scale)",
		categories: pcts, logY: true,
		series: []series{
			{"Watcher.Eval answers ErrTabCrashed, after Page.crash", at("tabguard-")},
			{"Chrome's crash report, after Page.crash", at("chrome-report-")},
			{"Watcher.Eval's answer, after Chrome's report", at("lag-")},
			{"rod eval with a 5 s deadline answers", at("timeout-")},
		},
	}
}

// recoveryPaths are BenchmarkRecovery's paths as benchreport labels them.
var recoveryPaths = map[string]string{
	"crash+Navigate":                     "crash + rod Navigate",
	"crash+PageReload":                   "crash + Page.reload",
	"no-document+Navigate":               "no document + rod Navigate",
	"alert+HandleJavaScriptDialog":       "alert + handleJavaScriptDialog",
	"crash+PageReload,transport=Connect": "crash + Page.reload through Connect",
}

func recovery(res *results) chart {
	c := chart{
		title: "Recovery to the first eval, median",
		x:     "from the recovering call to the first answer (ms)",
		bars:  true,
		series: []series{
			{"Watcher.Eval", nil},
			{"rod page.Eval", nil},
		},
	}
	for _, name := range res.names {
		path, ok := strings.CutPrefix(name, "BenchmarkRecovery/path=")
		if !ok {
			continue
		}
		label, ok := recoveryPaths[path]
		if !ok {
			label = path
		}
		i := float64(len(c.categories))
		c.categories = append(c.categories, label)
		for j, unit := range []string{"tabguard-p50-ms", "rod-p50-ms"} {
			if v, ok := res.get(name, unit); ok {
				c.series[j].pts = append(c.series[j].pts, plotter.XY{X: i, Y: v})
			}
		}
	}
	return c
}

func truncateScaling(res *results) chart {
	pts := keyed(res, "BenchmarkTruncateDOMScaling", `^(\d+)MB-ns$`, 1e-3)
	return chart{
		title: "TruncateDOM(html, DefaultMaxDOMBytes), by input size",
		x:     "input (MB, log scale)", y: "time a cut, median (µs)",
		logX:   true,
		ticks:  xs(pts),
		series: []series{{"TruncateDOM", pts}},
	}
}

func tabsCrashing(res *results) chart {
	const bench = "BenchmarkManyTabs"
	c := chart{
		title: "Healthy tabs' evals while one tab crashes",
		x:     "eval time (ms)",
		bars:  true,
		categories: []string{
			"median, no crash", "median, one tab crashing",
			"p99, no crash", "p99, one tab crashing",
		},
	}
	units := []string{"quiet-p50-ms", "crashing-p50-ms", "quiet-p99-ms", "crashing-p99-ms"}
	for _, s := range []struct{ name, prefix string }{{"Watcher tabs", "tabguard-"}, {"rod control tabs", "control-"}} {
		var pts plotter.XYs
		for i, u := range units {
			if v, ok := res.get(bench, s.prefix+u); ok {
				pts = append(pts, plotter.XY{X: float64(i), Y: v})
			}
		}
		c.series = append(c.series, series{s.name, pts})
	}
	return c
}

func slowLinkStart(res *results) chart {
	const bench = "BenchmarkStartLatency"
	c := chart{
		title: "A start over a slow link, median of each step",
		x:     "one-way delay (ms)", y: "round trips of the link (RTT)",
	}
	var all []plotter.XYs
	for _, s := range []struct{ name, step string }{
		{"WatchBrowser", "watchbrowser"}, {"bw.Watch", "watch"}, {"first Watcher.Eval", "firsteval"},
		{"rod connect", "rodconnect"}, {"rod open", "rodopen"}, {"rod's first page.Eval", "rodeval"},
	} {
		pts := keyed(res, bench, `^`+s.step+`-(\d+)ms-rtt$`, 1)
		c.series = append(c.series, series{s.name, pts})
		all = append(all, pts)
	}
	c.ticks = xs(all...)
	return c
}

// keyed returns a benchmark's metrics whose unit holds a number, matched
// by pattern's one group, as points (that number, the metric times scale)
// in the number's order.
func keyed(res *results, bench, pattern string, scale float64) plotter.XYs {
	re := regexp.MustCompile(pattern)
	var pts plotter.XYs
	for unit, v := range res.metrics[bench] {
		m := re.FindStringSubmatch(unit)
		if m == nil {
			continue
		}
		x, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			continue
		}
		pts = append(pts, plotter.XY{X: x, Y: v * scale})
	}
	slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	return pts
}

// xs returns the X values of the points, each once, in order.
func xs(sets ...plotter.XYs) []float64 {
	var out []float64
	for _, pts := range sets {
		for _, p := range pts {
			out = append(out, p.X)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
