package main

const (
	heartbeatBench = "BenchmarkHeartbeat"
	causeOverLink  = "BenchmarkCauseOverLink"
)

// causeSections are the claims about telling why a tab is stuck: what a
// heartbeat costs the healthy path, and how many round trips of a slow
// link each cause takes to tell, with no cause named that was not proven.
var causeSections = []section{{
	title: "Heartbeat on the healthy path",
	how: "Healthy `Watcher.Eval(ctx, \"() => 1\")` on one loaded tab, in blocks of 50: every other block runs " +
		"while a `BrowserWatcher` with `Options.Heartbeat` 100 ms (twenty times more often than the 2-5 s a remote " +
		"browser wants) beats on the same connection; it is started before its block and closed after. The " +
		"figure is the ratio of the medians of the blocks with it to the blocks without; the A/A row splits the " +
		"blocks without into odd and even.",
	rows: []row{
		{"median, with the heartbeat", heartbeatBench, "with-p50-us", "%.0f µs"},
		{"median, without", heartbeatBench, "without-p50-us", "%.0f µs"},
		{"median ratio (with / without)", heartbeatBench, "heartbeat-p50-ratio", "%.3f"},
		{"A/A median ratio (without, odd / even blocks)", heartbeatBench, "aa-p50-ratio", "%.3f"},
	},
	goals: []goal{
		{"heartbeat: healthy evals beside a 100 ms heartbeat at most 1.05 of those without", heartbeatBench, "heartbeat-p50-ratio", "%.3f", true, 1.05},
	},
}, {
	title: "Telling a cause over a slow link",
	how: "A TCP proxy in front of the browser delays each direction by 150 ms and by 500 ms. Each iteration, at " +
		"each delay, connects anew (`Options.Heartbeat` 1 s, default Options otherwise), watches a loaded tab, and " +
		"then: `Recover` on a page whose script loops, which asks the page, finds the script and stops it " +
		"(busy); a 400 ms deadline on the looping page, which must name neither a hung renderer nor a silent " +
		"link, as its probes have no time to prove either; `Recover` on a renderer hung outside JavaScript " +
		"(`chrome://hang`), which proves the hang once the probe window (`Options.Patience`, 1 s, or three " +
		"round trips if longer) passed with only the browser answering, then crashes the renderer and reloads " +
		"(hung); and a proxy that stops forwarding, which the heartbeat finds within its interval and one bound " +
		"(the interval, or three round trips if longer) (silent). Times are medians in round trips of the link " +
		"(RTT, twice the delay); the silent row's bound figure is the slowest over the bound.",
	rows: []row{
		{"rounds at each delay", causeOverLink, "tries-each", "%.0f"},
		{"400 ms deadlines that named a hung renderer or a silent link", causeOverLink, "unproven-named", "%.0f"},
	},
	grid: &grid{
		corner: "one-way delay",
		keys:   [][2]string{{"150ms", "150 ms"}, {"500ms", "500 ms"}},
		cols: []gridCol{
			{"busy: Recover", causeOverLink, "busy-%s-rtt", "%.2f RTT"},
			{"hung: Recover", causeOverLink, "hung-%s-rtt", "%.2f RTT"},
			{"silent: heartbeat", causeOverLink, "silent-%s-rtt", "%.2f RTT"},
			{"silent / (interval + bound)", causeOverLink, "silent/bound-%s", "%.3f"},
			{"unproven causes named", causeOverLink, "unproven-named-%s", "%.0f"},
		},
	},
	goals: []goal{
		{"slow link: a 400 ms deadline never names a hung renderer or a silent link", causeOverLink, "unproven-named", "%.0f", true, 0},
		{"slow link: Recover tells and stops a busy script in 2 round trips (2.6 RTT with the event grace and local processing)", causeOverLink, "busy-max-rtt", "%.3f RTT", true, 2.6},
		{"slow link: a silent link is found within the heartbeat's interval and one bound", causeOverLink, "silent/bound-max", "%.3f", true, 1},
	},
}}
