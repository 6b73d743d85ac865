package main

import "fmt"

const startLatency = "BenchmarkStartLatency"

// startSections are the claims about a start over a slow link: how many
// round trips each step of the library's start costs, beside rod's own.
var startSections = []section{{
	title: "Start over a slow link",
	how: "A TCP proxy in front of the browser delays each direction by a fixed one-way delay, chunk by chunk and " +
		"in order, without holding one message back for another, as a distant link does. Each iteration makes " +
		"one start at each delay, with default Options: rod connects through the proxy " +
		"(`rod.New().ControlURL(u).Connect()`, \"rod connect\"), then `tabguard.WatchBrowser`; rod opens a tab " +
		"at a small page from 127.0.0.1 (`browser.Page(proto.TargetCreateTarget{URL: ...})`, \"rod open\"), then " +
		"`bw.Watch(page)`; then the first `Watcher.Eval`, then rod's own first `page.Eval` on the same tab. Each " +
		"figure is a median over the iterations in round trips of the link (RTT, twice the delay). What a step " +
		"takes beyond its round trips is local processing, the browser's and the process's: a few milliseconds, " +
		"a larger share of a round trip the shorter the delay. The goals count round trips and allow 0.2 RTT for " +
		"it. A step of the library that fails makes a failed start, which gives no figure.",
	rows: []row{
		{"starts at each delay", startLatency, "starts-each", "%.0f"},
		{"failed starts, all delays", startLatency, "failed-starts", "%.0f"},
		{"WatchBrowser, worst median over the delays", startLatency, "watchbrowser-max-rtt", "%.3f RTT"},
		{"bw.Watch, worst median over the delays", startLatency, "watch-max-rtt", "%.3f RTT"},
		{"first Watcher.Eval, worst median over the delays", startLatency, "firsteval-max-rtt", "%.3f RTT"},
	},
	grid: &grid{
		corner: "one-way delay",
		keys: [][2]string{
			{"50ms", "50 ms"}, {"150ms", "150 ms"}, {"300ms", "300 ms"}, {"500ms", "500 ms"}, {"1000ms", "1 s"},
		},
		cols: []gridCol{
			{"WatchBrowser", startLatency, "watchbrowser-%s-rtt", "%.3f RTT"},
			{"bw.Watch", startLatency, "watch-%s-rtt", "%.3f RTT"},
			{"first Eval", startLatency, "firsteval-%s-rtt", "%.3f RTT"},
			{"rod connect", startLatency, "rodconnect-%s-rtt", "%.3f RTT"},
			{"rod open", startLatency, "rodopen-%s-rtt", "%.3f RTT"},
			{"rod eval", startLatency, "rodeval-%s-rtt", "%.3f RTT"},
			{"WatchBrowser / rod connect", startLatency, "watchbrowser/rodconnect-%s", "%.3f"},
			{"failed starts", startLatency, "failed-starts-%s", "%.0f"},
		},
	},
	goals: []goal{
		{"slow link: WatchBrowser at most 2 round trips at every delay (2.2 RTT with local processing)", startLatency, "watchbrowser-max-rtt", "%.3f RTT", true, 2.2},
		{"slow link: bw.Watch at most 1 round trip at every delay (1.2 RTT with local processing)", startLatency, "watch-max-rtt", "%.3f RTT", true, 1.2},
		{"slow link: the first Watcher.Eval at most 1 round trip at every delay (1.2 RTT with local processing)", startLatency, "firsteval-max-rtt", "%.3f RTT", true, 1.2},
		{"slow link: no failed start at 500 ms one way with default Options", startLatency, "failed-starts-500ms", "%.0f", true, 0},
		{"slow link: no failed start at 1 s one way with default Options", startLatency, "failed-starts-1000ms", "%.0f", true, 0},
	},
	note: startNote,
}}

// startNote sets the library's whole start beside rod's own at the
// longest delay, where local processing weighs least.
func startNote(res *results) string {
	var lib, own float64
	for _, u := range []string{"watchbrowser", "watch", "firsteval"} {
		v, ok := res.get(startLatency, u+"-500ms-rtt")
		if !ok {
			return ""
		}
		lib += v
	}
	for _, u := range []string{"rodconnect", "rodopen", "rodeval"} {
		v, ok := res.get(startLatency, u+"-500ms-rtt")
		if !ok {
			return ""
		}
		own += v
	}
	return fmt.Sprintf("At 500 ms one way, the library's steps of a start (WatchBrowser, bw.Watch, the first Eval) "+
		"took %.2f RTT in all; rod's own connect, open and eval took %.2f RTT.", lib, own)
}
