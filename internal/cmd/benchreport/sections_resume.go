package main

const resume = "BenchmarkResume"

// resumeSections are the claims about a connection that dropped while the
// browser lived on: what resuming it costs, in round trips of the link,
// and that resumes leave nothing behind.
var resumeSections = []section{{
	title: "Resume after a drop",
	how: "A browser from `tabguard.Connect` reaches the browser through a TCP proxy, and watches 1 tab, or 100 tabs, " +
		"through a BrowserWatcher; then the proxy delays each direction of every connection it makes from then on by " +
		"250 ms, as a distant link does. Each iteration cuts the connection " +
		"(the proxy closes both sockets; the browser lives on), waits for the watcher to see the drop, then " +
		"evaluates on every tab at once. \"Next eval\" is the time from the drop to the last of those evals' " +
		"answers; \"resumed\" the time to every session attached again. Both are medians over the iterations in " +
		"round trips of the link (RTT, 500 ms). A resume is the WebSocket handshake (1 RTT; the proxy answers " +
		"the TCP handshake itself) and one round trip that attaches again to every tab and checks the browser is " +
		"the same one; the eval is one more. With 100 tabs the browser also answers 100 sessions' settings " +
		"again before their evals, which is local processing, not a round trip. Then, on a link with no delay, " +
		"100 resumes of the 1-tab watcher: the goroutines and the heap in use after them, beside after the first.",
	rows: []row{
		{"next eval after a drop, 1 tab", resume, "next-eval-1tabs-rtt", "%.3f RTT"},
		{"next eval after a drop, 1 tab, slowest iteration", resume, "next-eval-1tabs-max-rtt", "%.3f RTT"},
		{"resumed, 1 tab", resume, "resumed-1tabs-rtt", "%.3f RTT"},
		{"next eval of every tab after a drop, 100 tabs", resume, "next-eval-100tabs-rtt", "%.3f RTT"},
		{"next eval of every tab after a drop, 100 tabs, slowest iteration", resume, "next-eval-100tabs-max-rtt", "%.3f RTT"},
		{"resumed, 100 tabs", resume, "resumed-100tabs-rtt", "%.3f RTT"},
		{"resumes counted for what they leave behind", resume, "leak-rounds", "%.0f"},
		{"goroutines grown over them", resume, "goroutines-grown", "%.0f"},
		{"heap in use grown over them", resume, "heap-grown-KiB", "%.0f KiB"},
	},
	goals: []goal{
		{"resume: a tab's next eval after a drop within the handshake and 2 round trips (3.2 RTT with local processing)", resume, "next-eval-1tabs-rtt", "%.3f RTT", true, 3.2},
		{"resume: 100 tabs' next evals after a drop within the handshake, 2 round trips and the browser's answers to 100 sessions' settings (4 RTT)", resume, "next-eval-100tabs-rtt", "%.3f RTT", true, 4},
		{"resume: no goroutine left behind by 100 resumes", resume, "goroutines-grown", "%.0f", true, 0},
		{"resume: the heap in use grows at most 1 MiB over 100 resumes", resume, "heap-grown-KiB", "%.0f KiB", true, 1024},
	},
}}
