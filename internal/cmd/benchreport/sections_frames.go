package main

import "fmt"

const (
	frameIn     = "BenchmarkFrameEval/frame=in-process"
	frameOut    = "BenchmarkFrameEval/frame=out-of-process"
	frameCrash  = "BenchmarkFrameCrash"
	cdpFrameIn  = "BenchmarkChromedpFrameEval/frame=in-process"
	cdpFrameOut = "BenchmarkChromedpFrameEval/frame=out-of-process"
)

// frameSections are the claims about iframes: a healthy eval in a frame,
// and the cut-off when an out-of-process iframe's renderer crashes.
var frameSections = []section{{
	title: "Evals in iframes",
	how: "`Watcher.EvalFrame(ctx, id, \"() => 1\")` against the driver's own eval in the same iframe, on a loaded, " +
		"watched tab of a page with one iframe. With site isolation off, the iframe is of the page's site and the " +
		"driver's own eval is rod's `frame.Eval` on `page.Element(\"#a\")`'s `Frame()`. With it on, the iframe is of " +
		"another site, in a renderer process of its own, which rod's frame eval cannot reach: the driver's own way " +
		"there is `Runtime.evaluate` on a session attached to the iframe's target (`Target.attachToTarget`, flatten) " +
		"and called through rod's `browser.Call`. Each iteration makes one call of each, and one of `Watcher.Eval` " +
		"and rod's `page.Eval` in the tab's main frame, in an order that goes through all 24. The A/A row splits " +
		"the driver's frame calls into odd and even blocks of 48 iterations. The tab is reached through a " +
		"connection that counts the CDP requests each call sends; after the timed calls, the heap allocations " +
		"of 1,000 calls of each frame eval are counted. chromedpguard's `Watcher.EvalFrame` is measured the same " +
		"way against chromedp's own: `chromedp.CallFunctionOn` on the in-process iframe's document, resolved once " +
		"(chromedp has no frame eval of its own), and `chromedp.Evaluate`, awaiting the promise, on a chromedp " +
		"context of the out-of-process iframe's target (`chromedp.WithTargetID`).",
	note: frameNote,
	rows: []row{
		{"calls of each", frameIn, "calls-each", "%.0f"},
		{"in process: rod frame.Eval median", frameIn, "own-p50-ms", "%.3f ms"},
		{"in process: Watcher.EvalFrame median", frameIn, "tabguard-p50-ms", "%.3f ms"},
		{"in process: median ratio (EvalFrame / frame.Eval)", frameIn, "p50-ratio", "%.3f"},
		{"in process: p99 ratio (EvalFrame / frame.Eval)", frameIn, "p99-ratio", "%.3f"},
		{"in process: A/A median ratio (frame.Eval odd / even blocks)", frameIn, "aa-p50-ratio", "%.3f"},
		{"in process: CDP requests a call, frame.Eval", frameIn, "own-requests", "%.3f"},
		{"in process: CDP requests a call, EvalFrame", frameIn, "tabguard-requests", "%.3f"},
		{"in process: allocations above frame.Eval", frameIn, "allocs-above-own", "%.1f"},
		{"in process: main frame, median ratio (Watcher.Eval / page.Eval)", frameIn, "main-p50-ratio", "%.3f"},
		{"out of process: Runtime.evaluate on the iframe's session, median", frameOut, "own-p50-ms", "%.3f ms"},
		{"out of process: Watcher.EvalFrame median", frameOut, "tabguard-p50-ms", "%.3f ms"},
		{"out of process: median ratio (EvalFrame / Runtime.evaluate)", frameOut, "p50-ratio", "%.3f"},
		{"out of process: p99 ratio (EvalFrame / Runtime.evaluate)", frameOut, "p99-ratio", "%.3f"},
		{"out of process: A/A median ratio (Runtime.evaluate odd / even blocks)", frameOut, "aa-p50-ratio", "%.3f"},
		{"out of process: CDP requests a call, EvalFrame", frameOut, "tabguard-requests", "%.3f"},
		{"out of process: allocations above Runtime.evaluate", frameOut, "allocs-above-own", "%.1f"},
		{"out of process: main frame, median ratio (Watcher.Eval / page.Eval)", frameOut, "main-p50-ratio", "%.3f"},
		{"chromedp, in process: chromedp.CallFunctionOn on the document, median", cdpFrameIn, "own-p50-ms", "%.3f ms"},
		{"chromedp, in process: Watcher.EvalFrame median", cdpFrameIn, "guarded-p50-ms", "%.3f ms"},
		{"chromedp, in process: median ratio (EvalFrame / CallFunctionOn)", cdpFrameIn, "p50-ratio", "%.3f"},
		{"chromedp, in process: A/A median ratio", cdpFrameIn, "aa-p50-ratio", "%.3f"},
		{"chromedp, in process: allocations above CallFunctionOn", cdpFrameIn, "allocs-above-own", "%.1f"},
		{"chromedp, out of process: chromedp.Evaluate on the iframe's target, median", cdpFrameOut, "own-p50-ms", "%.3f ms"},
		{"chromedp, out of process: Watcher.EvalFrame median", cdpFrameOut, "guarded-p50-ms", "%.3f ms"},
		{"chromedp, out of process: median ratio (EvalFrame / Evaluate)", cdpFrameOut, "p50-ratio", "%.3f"},
		{"chromedp, out of process: A/A median ratio", cdpFrameOut, "aa-p50-ratio", "%.3f"},
		{"chromedp, out of process: allocations above Evaluate", cdpFrameOut, "allocs-above-own", "%.1f"},
	},
	goals: []goal{
		{"frame eval in process: median ratio EvalFrame / rod's frame.Eval at most 1.05", frameIn, "p50-ratio", "%.3f", true, 1.05},
		{"frame eval out of process: median ratio EvalFrame / Runtime.evaluate on the iframe's session at most 1.05", frameOut, "p50-ratio", "%.3f", true, 1.05},
		{"chromedp frame eval in process: median ratio EvalFrame / chromedp.CallFunctionOn at most 1.05", cdpFrameIn, "p50-ratio", "%.3f", true, 1.05},
		{"chromedp frame eval out of process: median ratio EvalFrame / chromedp.Evaluate on the iframe's target at most 1.05", cdpFrameOut, "p50-ratio", "%.3f", true, 1.05},
		{"frame eval in process: one CDP request a call", frameIn, "tabguard-requests", "%.3f", true, 1},
		{"frame eval out of process: one CDP request a call", frameOut, "tabguard-requests", "%.3f", true, 1},
	},
}, {
	title: "Crash of an out-of-process iframe",
	how: "With site isolation on, each run opens a tab, watched through one BrowserWatcher, at a page with an " +
		"iframe of another site, starts 20 `Watcher.EvalFrame` calls in the iframe of a promise that never " +
		"settles, and crashes the iframe's renderer with `Page.crash` on a session attached to the iframe's " +
		"target. Each call's cut-off is timed from the arrival at rod of Chrome's `Target.targetCrashed` for the " +
		"iframe's target to the call's return with `ErrFrameCrashed`; a run's figure is its last call's. A " +
		"`Watcher.Eval` in the tab's main frame is sent with the crash, and another after it: each must answer.",
	rows: []row{
		{"runs", frameCrash, "runs", "%.0f"},
		{"evals in flight a run", frameCrash, "evals-each-run", "%.0f"},
		{"cut-off after Chrome's report, last of a run, p50", frameCrash, "last-p50-ms", "%.2f ms"},
		{"cut-off after Chrome's report, last of a run, p95", frameCrash, "last-p95-ms", "%.2f ms"},
		{"cut-off after Chrome's report, last of a run, max", frameCrash, "last-max-ms", "%.2f ms"},
		{"cut-off after Chrome's report, every eval, p95", frameCrash, "each-p95-ms", "%.2f ms"},
		{"Chrome's crash report after Page.crash, p50", frameCrash, "chrome-report-p50-ms", "%.1f ms"},
		{"Chrome's crash report after Page.crash, p95", frameCrash, "chrome-report-p95-ms", "%.1f ms"},
		{"main frame's eval sent with the crash, p95", frameCrash, "main-p95-ms", "%.1f ms"},
		{"main frame's evals that did not answer", frameCrash, "main-errors", "%.0f"},
	},
	goals: []goal{
		{"frame crash: evals in flight cut off under 100 ms after Chrome's report, p95", frameCrash, "last-p95-ms", "%.2f ms", true, 99.999},
		{"frame crash: the main frame answers throughout", frameCrash, "main-errors", "%.0f", true, 0},
	},
}}

// frameNote sets the main-frame eval on a tab with an iframe beside the
// healthy eval on a tab with none.
func frameNote(res *results) string {
	in, ok1 := res.get(frameIn, "main-p50-ratio")
	out, ok2 := res.get(frameOut, "main-p50-ratio")
	h, ok3 := res.get(healthy, "p50-ratio")
	if !ok1 || !ok2 || !ok3 {
		return ""
	}
	return fmt.Sprintf("In the main frame of the same tabs, Watcher.Eval measured %.3fx page.Eval (iframe in process) "+
		"and %.3fx (out of process); on a tab without iframes (Healthy eval overhead), %.3fx.", in, out, h)
}
