package main

import "slices"

// row is one figure of a section: a metric of a benchmark.
type row struct {
	label, bench, unit, format string
}

// goal is a figure's bar: the metric must be at most (or at least) limit.
type goal struct {
	text, bench, unit, format string
	atMost                    bool
	limit                     float64
}

// section is one claim of docs/benchmarks-guide.md: how it is measured, its figures and
// its goals.
type section struct {
	title, how string
	rows       []row
	grid       *grid // figures measured alike at several settings, may be nil
	goals      []goal
	note       func(*results) string // extra reading of the figures, may be nil
}

// grid is a table with a row per setting (a delay) and a column per
// figure: a figure's unit is its column's unit with the setting's key in
// place of %s.
type grid struct {
	corner string      // the heading of the settings' column
	keys   [][2]string // each setting's key in the units, and its label
	cols   []gridCol
}

// gridCol is one figure of a grid, at every setting.
type gridCol struct {
	label, bench, unit, format string
}

const (
	healthy        = "BenchmarkHealthyEval"
	crash          = "BenchmarkCrashToAnswer"
	refused        = "BenchmarkRefusal/tab=crashed"
	refusedOwned   = "BenchmarkRefusal/tab=crashed,transport=Connect"
	nodoc          = "BenchmarkRefusal/tab=no-document"
	dom            = "BenchmarkDOM5MB"
	truncate       = "BenchmarkTruncateDOMScaling"
	tabs           = "BenchmarkManyTabs"
	recCrashNav    = "BenchmarkRecovery/path=crash+Navigate"
	recCrashReload = "BenchmarkRecovery/path=crash+PageReload"
	recNoDocNav    = "BenchmarkRecovery/path=no-document+Navigate"
	recDialog      = "BenchmarkRecovery/path=alert+HandleJavaScriptDialog"
	recOwned       = "BenchmarkRecovery/path=crash+PageReload,transport=Connect"
	scale          = "BenchmarkScale"
	transport      = "BenchmarkTransport"
	windows        = "BenchmarkDOMWindows"
	chromedpEval   = "BenchmarkChromedpEval"
	chromedpSize   = "BenchmarkChromedpBinarySize"
	otelEval       = "BenchmarkOtelEval"
)

// sections are the report's, in order; the frames', the prompts', the
// start's, the causes', the captures' and the actions' are in sections_*.go.
var sections = append([]section{{
	title: "Many watched tabs",
	how: "One browser connection with 1, 50 and 200 tabs open. One tab is busy: a burst of 400 fetches, with " +
		"the Network domain on (as a watcher turns it on), makes CDP events, which rod fans out to every page of " +
		"the connection. The CPU the Go process spends (getrusage, user and system, until the process is quiet " +
		"again) is divided by the messages read over the connection. rod alone is measured at 1 and 50 tabs; at " +
		"200 each iteration runs one burst with rod alone and one with all 200 tabs watched through one " +
		"BrowserWatcher, in alternating order, watching them anew each time: that step also gives the time a " +
		"`bw.Watch` takes and, around it, the goroutines and heap it adds per tab.",
	rows: []row{
		{"tabs", scale, "tabs", "%.0f"},
		{"rod alone, 1 tab: CPU per event", scale, "rod-1-ns/event", "%.0f ns"},
		{"rod alone, 50 tabs: CPU per event", scale, "rod-50-ns/event", "%.0f ns"},
		{"rod alone, 200 tabs: CPU per event", scale, "rod-200-ns/event", "%.0f ns"},
		{"200 tabs watched by one BrowserWatcher: CPU per event", scale, "watched-200-ns/event", "%.0f ns"},
		{"ratio, watched / rod alone at 200 tabs", scale, "cpu-ratio", "%.3f"},
		{"rod's own growth, 200 tabs / 1 tab", scale, "rod-200/rod-1", "%.2fx"},
		{"goroutines added per watched tab", scale, "goroutines/tab", "%.2f"},
		{"heap added per watched tab", scale, "heap-bytes/tab", "%.0f bytes"},
		{"bw.Watch per tab, at 200 tabs", scale, "watch-ms/tab", "%.2f ms"},
	},
	goals: []goal{
		{"scale: CPU per event with 200 watched tabs at most 1.1x rod alone's", scale, "cpu-ratio", "%.3f", true, 1.1},
		{"scale: no goroutine per watched tab", scale, "goroutines/tab", "%.2f", true, 0},
		{"scale: heap per watched tab at most 16 KB", scale, "heap-bytes/tab", "%.0f bytes", true, 16 * 1024},
		{"scale: bw.Watch at most 2 ms a tab at 200 tabs", scale, "watch-ms/tab", "%.2f ms", true, 2},
	},
}, {
	title: "Healthy eval overhead",
	how: "`Watcher.Eval(ctx, \"() => 1\")` against rod's `page.Eval` on the same loaded tab, one call of each " +
		"per iteration in alternating order. The A/A row splits the rod calls into odd and even blocks of 50 " +
		"iterations: two halves of the same thing, so their p99 ratio is the noise floor of a p99 ratio. " +
		"The tab is reached through a connection that counts the CDP requests each call sends. After the " +
		"timed calls, the heap allocations of 1,000 calls of each are counted (the whole process's).",
	rows: []row{
		{"calls of each", healthy, "calls-each", "%.0f"},
		{"rod page.Eval median", healthy, "raw-p50-ms", "%.3f ms"},
		{"Watcher.Eval median", healthy, "tabguard-p50-ms", "%.3f ms"},
		{"median ratio (Watcher / rod)", healthy, "p50-ratio", "%.3f"},
		{"rod page.Eval p99", healthy, "raw-p99-ms", "%.3f ms"},
		{"Watcher.Eval p99", healthy, "tabguard-p99-ms", "%.3f ms"},
		{"p99 ratio (Watcher / rod)", healthy, "p99-ratio", "%.3f"},
		{"A/A median ratio (rod odd / even blocks)", healthy, "aa-p50-ratio", "%.3f"},
		{"A/A p99 ratio (rod odd / even blocks)", healthy, "aa-p99-ratio", "%.3f"},
		{"CDP requests a call, rod page.Eval", healthy, "raw-requests", "%.3f"},
		{"CDP requests a call, Watcher.Eval", healthy, "tabguard-requests", "%.3f"},
		{"allocations a call, rod page.Eval", healthy, "raw-allocs", "%.1f"},
		{"allocations a call, Watcher.Eval", healthy, "tabguard-allocs", "%.1f"},
		{"allocations above page.Eval", healthy, "allocs-above-raw", "%.1f"},
	},
	goals: []goal{
		{"healthy eval: median ratio Watcher.Eval / page.Eval at most 1.03", healthy, "p50-ratio", "%.3f", true, 1.03},
		{"healthy eval: one CDP request a call, none for the preflight", healthy, "tabguard-requests", "%.3f", true, 1},
		{"healthy eval: at most 10 allocations above page.Eval", healthy, "allocs-above-raw", "%.1f", true, 10},
	},
	note: p99Note,
}, {
	title: "Connect's transport on the healthy path",
	how: "The same tab reached over two connections to one browser, rod's own transport and `tabguard.Connect`'s, " +
		"each evaluating `() => 1` with rod's `page.Eval`, one call of each per iteration in alternating order. " +
		"With no heartbeat set, Connect sends nothing of its own.",
	rows: []row{
		{"calls of each", transport, "calls-each", "%.0f"},
		{"rod's transport, median", transport, "rod-p50-ms", "%.3f ms"},
		{"Connect's transport, median", transport, "connect-p50-ms", "%.3f ms"},
		{"median ratio (Connect / rod)", transport, "p50-ratio", "%.3f"},
	},
	goals: []goal{
		{"transport: median ratio Connect / rod's own at most 1.05", transport, "p50-ratio", "%.3f", true, 1.05},
	},
}, {
	title: "Crash-to-answer latency",
	how: "An eval in flight that never settles, then `Page.crash`; each time is counted from the `Page.crash` " +
		"request. After each crash a CDP `Page.reload` recovers the tab. A rod `page.Eval` without a short " +
		"deadline is in flight every time; every tenth crash, a rod eval with a 5 s deadline is in flight too, " +
		"and the crash is left standing until it answers. \"Chrome's report\" is when `Target.targetCrashed` " +
		"reached rod; the lag is Watcher.Eval's answer minus that, per crash.",
	note: crashNote,
	rows: []row{
		{"crashes", crash, "crashes", "%.0f"},
		{"Watcher.Eval answers ErrTabCrashed, p50", crash, "tabguard-p50-ms", "%.1f ms"},
		{"Watcher.Eval answers ErrTabCrashed, p95", crash, "tabguard-p95-ms", "%.1f ms"},
		{"Watcher.Eval answers ErrTabCrashed, p99", crash, "tabguard-p99-ms", "%.1f ms"},
		{"Chrome's crash report, p50", crash, "chrome-report-p50-ms", "%.1f ms"},
		{"Chrome's crash report, p95", crash, "chrome-report-p95-ms", "%.1f ms"},
		{"lag after Chrome's report, p50", crash, "lag-p50-ms", "%.2f ms"},
		{"lag after Chrome's report, p95", crash, "lag-p95-ms", "%.2f ms"},
		{"rod eval with a 5 s deadline answers, p50", crash, "timeout-p50-ms", "%.0f ms"},
		{"crashes with the 5 s eval", crash, "timeout-crashes", "%.0f"},
		{"speedup (5 s eval p50 / Watcher.Eval p95)", crash, "speedup-vs-timeout", "%.1fx"},
		{"raw rod evals answered before the reload", crash, "raw-answered", "%.0f"},
		{"longest wait given to raw rod before the reload", crash, "raw-watched-max-ms", "%.0f ms"},
	},
	goals: []goal{
		{"crash: Watcher.Eval p95 under 100 ms", crash, "tabguard-p95-ms", "%.1f ms", true, 99.999},
		{"crash: at least 50x faster than a 5 s timeout", crash, "speedup-vs-timeout", "%.1fx", false, 50},
	},
}, {
	title: "Refusal latency",
	how: "`Watcher.Eval` on a tab it must refuse: one whose renderer crashed, one whose load failed (connection " +
		"refused). A refusal sends nothing to the renderer, but before it answers it makes sure no recovery is " +
		"still on its way through rod's event fan-out: one browser-side marker call (see sync.go). On a browser " +
		"from `Connect`, whose transport hands each message to the watchers before rod reads on, it makes no " +
		"call at all. The baseline, timed alternately with each refusal, is the cheapest browser-side round " +
		"trip: `Target.getTargetInfo`.",
	rows: []row{
		{"crashed tab, p50", refused, "p50-us", "%.0f µs"},
		{"crashed tab, p99", refused, "p99-us", "%.0f µs"},
		{"crashed tab, max", refused, "max-us", "%.0f µs"},
		{"crashed tab: Target.getTargetInfo round trip, p50", refused, "roundtrip-p50-us", "%.0f µs"},
		{"crashed tab: refusal / round trip, p50", refused, "p50/roundtrip", "%.3f"},
		{"crashed tab: refusal / round trip, p99", refused, "p99/roundtrip-p99", "%.3f"},
		{"crashed tab: 5 s timeout / refusal p99", refused, "refusal-vs-timeout", "%.0fx"},
		{"no-document tab, p50", nodoc, "p50-us", "%.0f µs"},
		{"no-document tab, p99", nodoc, "p99-us", "%.0f µs"},
		{"no-document tab: refusal / round trip, p50", nodoc, "p50/roundtrip", "%.3f"},
		{"no-document tab: refusal / round trip, p99", nodoc, "p99/roundtrip-p99", "%.3f"},
		{"crashed tab through Connect, p50", refusedOwned, "p50-us", "%.0f µs"},
		{"crashed tab through Connect, p99", refusedOwned, "p99-us", "%.0f µs"},
		{"crashed tab through Connect: refusal / round trip, p50", refusedOwned, "p50/roundtrip", "%.3f"},
	},
	goals: []goal{
		{"refusal through Connect: p99 under 1 ms, no round trip", refusedOwned, "p99-us", "%.0f µs", true, 999.999},
		{"refusal on a crashed tab: p50 at most 1.5x one browser-side round trip", refused, "p50/roundtrip", "%.3f", true, 1.5},
		{"refusal on a no-document tab: p50 at most 1.5x one browser-side round trip", nodoc, "p50/roundtrip", "%.3f", true, 1.5},
		{"refusal on a crashed tab: at least 1000x faster than a 5 s timeout at p99", refused, "refusal-vs-timeout", "%.0fx", false, 1000},
	},
}, {
	title: "Recovery to the first eval",
	how: "A tab is broken, the watcher has seen it, then one recovering call is made with rod or raw CDP, not " +
		"through the watcher, and an eval follows at once. Timed from the recovering call to the first eval " +
		"that answers, on a watched tab with `Watcher.Eval` and on a tab of rod's alone with `page.Eval`, one " +
		"cycle of each per iteration in alternating order. A refusal after the recovery is stale: it is " +
		"counted, and the eval is tried again until it answers.",
	rows: []row{
		{"crash + rod Navigate: cycles", recCrashNav, "cycles", "%.0f"},
		{"crash + rod Navigate: Watcher.Eval, p50", recCrashNav, "tabguard-p50-ms", "%.1f ms"},
		{"crash + rod Navigate: rod page.Eval, p50", recCrashNav, "rod-p50-ms", "%.1f ms"},
		{"crash + rod Navigate: ratio", recCrashNav, "p50-ratio", "%.3f"},
		{"crash + rod Navigate: stale refusals", recCrashNav, "stale-refusals", "%.0f"},
		{"crash + Page.reload: Watcher.Eval, p50", recCrashReload, "tabguard-p50-ms", "%.1f ms"},
		{"crash + Page.reload: rod page.Eval, p50", recCrashReload, "rod-p50-ms", "%.1f ms"},
		{"crash + Page.reload: ratio", recCrashReload, "p50-ratio", "%.3f"},
		{"crash + Page.reload: stale refusals", recCrashReload, "stale-refusals", "%.0f"},
		{"no document + rod Navigate: Watcher.Eval, p50", recNoDocNav, "tabguard-p50-ms", "%.1f ms"},
		{"no document + rod Navigate: rod page.Eval, p50", recNoDocNav, "rod-p50-ms", "%.1f ms"},
		{"no document + rod Navigate: ratio", recNoDocNav, "p50-ratio", "%.3f"},
		{"no document + rod Navigate: stale refusals", recNoDocNav, "stale-refusals", "%.0f"},
		{"alert + Page.handleJavaScriptDialog: Watcher.Eval, p50", recDialog, "tabguard-p50-ms", "%.2f ms"},
		{"alert + Page.handleJavaScriptDialog: rod page.Eval, p50", recDialog, "rod-p50-ms", "%.2f ms"},
		{"alert + Page.handleJavaScriptDialog: ratio", recDialog, "p50-ratio", "%.3f"},
		{"alert + Page.handleJavaScriptDialog: stale refusals", recDialog, "stale-refusals", "%.0f"},
		{"crash + Page.reload through Connect (no marker call): Watcher.Eval, p50", recOwned, "tabguard-p50-ms", "%.1f ms"},
		{"crash + Page.reload through Connect: ratio", recOwned, "p50-ratio", "%.3f"},
		{"crash + Page.reload through Connect: stale refusals", recOwned, "stale-refusals", "%.0f"},
	},
	goals: []goal{
		{"recovery, crash + rod Navigate: median at most 1.1x rod's", recCrashNav, "p50-ratio", "%.3f", true, 1.1},
		{"recovery, crash + Page.reload: median at most 1.1x rod's", recCrashReload, "p50-ratio", "%.3f", true, 1.1},
		{"recovery, no document + rod Navigate: median at most 1.1x rod's", recNoDocNav, "p50-ratio", "%.3f", true, 1.1},
		{"recovery, alert + Page.handleJavaScriptDialog: median at most 1.1x rod's", recDialog, "p50-ratio", "%.3f", true, 1.1},
		{"recovery: zero stale refusals, crash + rod Navigate", recCrashNav, "stale-refusals", "%.0f", true, 0},
		{"recovery: zero stale refusals, crash + Page.reload", recCrashReload, "stale-refusals", "%.0f", true, 0},
		{"recovery: zero stale refusals, no document + rod Navigate", recNoDocNav, "stale-refusals", "%.0f", true, 0},
		{"recovery: zero stale refusals, alert + Page.handleJavaScriptDialog", recDialog, "stale-refusals", "%.0f", true, 0},
		{"recovery: zero stale refusals through Connect, where refusals make no round trip", recOwned, "stale-refusals", "%.0f", true, 0},
	},
}, {
	title: "Bounded DOM on a 5 MB page",
	how: "A generated page of 1- to 4-byte runes, read three ways in rotating order over a DevTools connection " +
		"that counts the payload bytes it reads: `Watcher.DOM(ctx, DefaultMaxDOMBytes)`; rod's `page.Eval` of " +
		"the full `outerHTML`, then `TruncateDOM`; and the floor, an eval of `outerHTML.length` (the renderer's " +
		"serialisation alone). Each iteration also times Watcher.DOM and the floor three more times, in " +
		"alternating order. Times are medians. Before timing, Watcher.DOM's result is checked against " +
		"`TruncateDOM` of the full read, and its Size against the full read's UTF-8 length.",
	rows: []row{
		{"page size (UTF-8)", dom, "page-bytes", "%.0f bytes"},
		{"cap", dom, "cap-bytes", "%.0f bytes"},
		{"Watcher.DOM", dom, "tabguard-ms", "%.0f ms"},
		{"full outerHTML + TruncateDOM", dom, "full-ms", "%.0f ms"},
		{"floor: outerHTML.length", dom, "floor-ms", "%.0f ms"},
		{"speedup (full / Watcher.DOM)", dom, "full/tabguard", "%.2fx"},
		{"Watcher.DOM / floor", dom, "tabguard/floor", "%.2f"},
		{"bytes read, Watcher.DOM", dom, "tabguard-bytes", "%.0f"},
		{"bytes read, full outerHTML", dom, "full-bytes", "%.0f"},
		{"bytes read, floor", dom, "floor-bytes", "%.0f"},
		{"Watcher.DOM bytes / cap", dom, "bytes/cap", "%.2f"},
		{"Size exact in UTF-8 bytes (1 = yes)", dom, "size-exact", "%.0f"},
	},
	goals: []goal{
		{"DOM: at least 5x faster than the full read", dom, "full/tabguard", "%.2fx", false, 5},
		{"DOM: within 1.5x of the serialisation floor", dom, "tabguard/floor", "%.2f", true, 1.5},
		{"DOM: at most 3x the cap in bytes on the wire", dom, "bytes/cap", "%.2f", true, 3},
		{"DOM: Size exact in UTF-8 bytes", dom, "size-exact", "%.0f", false, 1},
	},
}, {
	title: "DOM windows on a 5 MB page",
	how: "`Watcher.ReadDOM` with 100 KB windows on the 5 MB page of 1- to 4-byte runes, over a connection that " +
		"counts the bytes it reads. Each iteration times, in rotating order: the first window of a new snapshot; " +
		"the floor, an eval of `outerHTML.length`; the whole page read window by window from one snapshot; and " +
		"one read of the full `outerHTML` by rod's `page.Eval`. Before timing, the windows are checked to join up " +
		"to the page exactly.",
	rows: []row{
		{"page size (UTF-8)", windows, "page-bytes", "%.0f bytes"},
		{"first window", windows, "window-ms", "%.1f ms"},
		{"floor: outerHTML.length", windows, "floor-ms", "%.1f ms"},
		{"first window / floor", windows, "window/floor", "%.3f"},
		{"windows to read the page", windows, "windows", "%.0f"},
		{"the whole page in windows", windows, "all-windows-ms", "%.0f ms"},
		{"one full outerHTML read", windows, "full-ms", "%.0f ms"},
		{"whole page in windows / one full read", windows, "all-windows/full", "%.3f"},
		{"largest bytes read for a window / cap", windows, "wire-bytes/cap", "%.3f"},
	},
	goals: []goal{
		{"DOM windows: the first within 1.2x of the serialisation floor", windows, "window/floor", "%.3f", true, 1.2},
		{"DOM windows: the whole page within 2x of one full read", windows, "all-windows/full", "%.3f", true, 2},
		{"DOM windows: at most 1.5x the cap in bytes on the wire", windows, "wire-bytes/cap", "%.3f", true, 1.5},
	},
}, {
	title: "TruncateDOM scaling",
	how: "`TruncateDOM(html, DefaultMaxDOMBytes)` on 1 MB, 10 MB and 100 MB of HTML with multi-byte runes at " +
		"the cut; each iteration cuts each input once. Times are medians; allocations are counted over 100 cuts.",
	note: truncateNote,
	rows: []row{
		{"1 MB", truncate, "1MB-ns", "%.0f ns"},
		{"10 MB", truncate, "10MB-ns", "%.0f ns"},
		{"100 MB", truncate, "100MB-ns", "%.0f ns"},
		{"time ratio 100 MB / 1 MB", truncate, "100MB/1MB", "%.3f"},
		{"cap", truncate, "cap-bytes", "%.0f bytes"},
		{"bytes allocated per cut, 1 MB", truncate, "1MB-B", "%.0f"},
		{"bytes allocated per cut, 100 MB", truncate, "100MB-B", "%.0f"},
		{"allocations per cut, 1 MB", truncate, "1MB-allocs", "%.2f"},
		{"allocations per cut, 100 MB", truncate, "100MB-allocs", "%.2f"},
	},
	goals: []goal{
		{"TruncateDOM: flat time, 100 MB / 1 MB at most 1.5", truncate, "100MB/1MB", "%.3f", true, 1.5},
		{"TruncateDOM: one cap-sized buffer, at most 1.1x cap bytes a cut", truncate, "100MB-B", "%.0f bytes", true, 1.1 * 100 * 1024},
		{"TruncateDOM: one allocation a cut, as its doc says", truncate, "100MB-allocs", "%.2f", true, 1},
	},
}, {
	title: "Many tabs, one crashing",
	how: "16 tabs evaluate `() => 1` in a loop with a 20 ms pause between calls. In alternate 2 s phases one tab, " +
		"in a browser context of its own, is crashed and reloaded once a second; the first 250 ms of each phase " +
		"are not counted. Of the 15 healthy tabs, 8 evaluate through a Watcher and 7 through rod's `page.Eval` " +
		"as a control: what the crashes cost the control tabs is the machine's share, not the library's.",
	rows: []row{
		{"crashes", tabs, "crashes", "%.0f"},
		{"Watcher tabs: calls counted", tabs, "tabguard-calls", "%.0f"},
		{"Watcher tabs: median, quiet", tabs, "tabguard-quiet-p50-ms", "%.2f ms"},
		{"Watcher tabs: median, crashing", tabs, "tabguard-crashing-p50-ms", "%.2f ms"},
		{"Watcher tabs: median ratio", tabs, "tabguard-p50-ratio", "%.3f"},
		{"Watcher tabs: p99, quiet", tabs, "tabguard-quiet-p99-ms", "%.2f ms"},
		{"Watcher tabs: p99, crashing", tabs, "tabguard-crashing-p99-ms", "%.2f ms"},
		{"Watcher tabs: p99 ratio (reported only)", tabs, "tabguard-p99-ratio", "%.3f"},
		{"Watcher tabs: errors, quiet", tabs, "tabguard-quiet-errors", "%.0f"},
		{"Watcher tabs: errors, crashing", tabs, "tabguard-crashing-errors", "%.0f"},
		{"control tabs: median ratio", tabs, "control-p50-ratio", "%.3f"},
		{"control tabs: p99 ratio", tabs, "control-p99-ratio", "%.3f"},
		{"control tabs: errors, crashing", tabs, "control-crashing-errors", "%.0f"},
	},
	goals: []goal{
		{"many tabs: healthy Watcher tabs' median ratio at most 1.2", tabs, "tabguard-p50-ratio", "%.3f", true, 1.2},
		{"many tabs: zero errors on healthy Watcher tabs while one crashes", tabs, "tabguard-crashing-errors", "%.0f", true, 0},
	},
	note: tabsNote,
}, {
	title: "chromedp: healthy eval overhead",
	how: "chromedpguard's `Watcher.Eval(ctx, \"() => 1\")` against plain chromedp, " +
		"`chromedp.Run(ctx, chromedp.Evaluate[int](\"(() => 1)()\"))`, on the same loaded tab. Watcher.Eval asks " +
		"Chrome to await nothing and awaits a promise result with a second call; a third call, chromedp.Evaluate " +
		"with `EvalAwaitPromise`, shows what awaiting every result in Chrome costs. One call of each per " +
		"iteration, in an order that goes through all six. The A/A row splits the plain calls into odd and even " +
		"blocks of 60 iterations. After the timed calls, the heap allocations of 1,000 calls of each are counted.",
	rows: []row{
		{"calls of each", chromedpEval, "calls-each", "%.0f"},
		{"chromedp.Evaluate median", chromedpEval, "plain-p50-ms", "%.3f ms"},
		{"Watcher.Eval median", chromedpEval, "guarded-p50-ms", "%.3f ms"},
		{"median ratio (Watcher / chromedp)", chromedpEval, "p50-ratio", "%.3f"},
		{"chromedp.Evaluate p99", chromedpEval, "plain-p99-ms", "%.3f ms"},
		{"Watcher.Eval p99", chromedpEval, "guarded-p99-ms", "%.3f ms"},
		{"p99 ratio (Watcher / chromedp)", chromedpEval, "p99-ratio", "%.3f"},
		{"chromedp.Evaluate with EvalAwaitPromise median", chromedpEval, "awaited-p50-ms", "%.3f ms"},
		{"what Chrome's await costs: median ratio (awaited / chromedp)", chromedpEval, "await-ratio", "%.3f"},
		{"A/A median ratio (chromedp odd / even blocks)", chromedpEval, "aa-p50-ratio", "%.3f"},
		{"allocations a call, chromedp.Evaluate", chromedpEval, "plain-allocs", "%.1f"},
		{"allocations a call, Watcher.Eval", chromedpEval, "guarded-allocs", "%.1f"},
		{"allocations above chromedp.Evaluate", chromedpEval, "allocs-above-plain", "%.1f"},
	},
	goals: []goal{
		{"chromedp eval: median ratio Watcher.Eval / chromedp.Evaluate at most 1.03", chromedpEval, "p50-ratio", "%.3f", true, 1.03},
		{"chromedp eval: at most 10 allocations above chromedp.Evaluate", chromedpEval, "allocs-above-plain", "%.1f", true, 10},
	},
}, {
	title: "chromedp: binary size",
	how: "Two programs that serve a page from 127.0.0.1, open it in headless Chromium and evaluate once: " +
		"`chromedpguard/internal/sizeprobe/plain` on chromedp alone, `.../guarded` through chromedpguard " +
		"(Watch, then Watcher.Eval); all else is shared. Each built with `go build` inside the chromedpguard " +
		"module, as it builds by default and stripped (`-ldflags=\"-s -w\"`); the growth is what adopting " +
		"the guard adds to a chromedp program. The machine code it adds, by package, is the sum of the sizes " +
		"`go tool nm -size` gives the functions (T and t) of the default builds.",
	rows: []row{
		{"plain chromedp program", chromedpSize, "plain-bytes", "%.0f bytes"},
		{"the same through chromedpguard", chromedpSize, "guarded-bytes", "%.0f bytes"},
		{"growth", chromedpSize, "growth-bytes", "%.0f bytes"},
		{"plain chromedp program, stripped", chromedpSize, "plain-stripped-bytes", "%.0f bytes"},
		{"the same through chromedpguard, stripped", chromedpSize, "guarded-stripped-bytes", "%.0f bytes"},
		{"growth, stripped", chromedpSize, "growth-stripped-bytes", "%.0f bytes"},
		{"growth in machine code", chromedpSize, "code-growth-bytes", "%.0f bytes"},
		{"of it, internal/engine", chromedpSize, "engine-code-bytes", "%.0f bytes"},
		{"of it, tabstate", chromedpSize, "tabstate-code-bytes", "%.0f bytes"},
		{"of it, chromedpguard", chromedpSize, "chromedpguard-code-bytes", "%.0f bytes"},
		{"of it, log/slog", chromedpSize, "slog-code-bytes", "%.0f bytes"},
		{"of it, the rest", chromedpSize, "other-code-bytes", "%.0f bytes"},
	},
	goals: []goal{
		{"chromedp binary: adopting the guard adds at most 1 MB", chromedpSize, "growth-bytes", "%.0f bytes", true, 1 << 20},
	},
	note: sizeNote,
}, {
	title: "Observability: otelguard's cost",
	how: "Three tabs of one browser, each loaded with the same small page from 127.0.0.1: one evaluated with " +
		"rod's `page.Eval`, one with `Watcher.Eval` and no Trace, one with `Watcher.Eval` traced by " +
		"`otelguard.New` on OpenTelemetry's real SDK: every span sampled and exported as it ends to an " +
		"in-memory exporter, every metric aggregated for a manual reader. Each iteration makes one call of " +
		"each, `() => 1`, in rotating order, under a caller's span. After the timed calls, the heap " +
		"allocations of 1,000 calls of each are counted.",
	rows: []row{
		{"calls of each", otelEval, "calls-each", "%.0f"},
		{"rod page.Eval median", otelEval, "raw-p50-ms", "%.3f ms"},
		{"Watcher.Eval, no Trace, median", otelEval, "plain-p50-ms", "%.3f ms"},
		{"Watcher.Eval traced by otelguard, median", otelEval, "otel-p50-ms", "%.3f ms"},
		{"median ratio, no Trace / page.Eval", otelEval, "plain-p50-ratio", "%.3f"},
		{"median ratio, otelguard / page.Eval", otelEval, "otel-p50-ratio", "%.3f"},
		{"p99 ratio, otelguard / page.Eval", otelEval, "otel-p99-ratio", "%.3f"},
		{"allocations a call, page.Eval", otelEval, "raw-allocs", "%.1f"},
		{"allocations a call, Watcher.Eval with no Trace", otelEval, "plain-allocs", "%.1f"},
		{"allocations a call, Watcher.Eval traced", otelEval, "otel-allocs", "%.1f"},
		{"allocations otelguard adds (span, points)", otelEval, "otel-allocs-above", "%.1f"},
	},
	goals: []goal{
		{"otelguard: traced eval's median at most 1.10x page.Eval's", otelEval, "otel-p50-ratio", "%.3f", true, 1.10},
	},
}}, slices.Concat(frameSections, promptSections, startSections, causeSections, captureSections, actionSections, resumeSections)...)
