package main

import "fmt"

const (
	click         = "BenchmarkClick"
	chromedpClick = "BenchmarkChromedpClick"
	snapshot      = "BenchmarkSnapshot"
)

// actionSections are the claims about actions and the snapshot: what a
// guarded click costs beside the driver's own, and what a snapshot of a
// large page costs beside Playwright's aria snapshot.
var actionSections = []section{{
	title: "Actions: a guarded click beside rod's",
	how: "`Watcher.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Selector: \"#t\"})` against rod's " +
		"`page.Element(\"#t\")` then `el.Click(proto.InputMouseButtonLeft, 1)`, on the same button of a loaded tab, " +
		"each finding the element every time: one click of each per iteration, in alternating order. The A/A row " +
		"splits rod's clicks into odd and even blocks of 20 iterations. The tab is reached through a connection " +
		"that counts the CDP requests each click sends. After the timed clicks, the heap allocations of 20 clicks " +
		"of each are counted, and the page's count of the clicks it received must equal the clicks made.",
	rows: []row{
		{"clicks of each", click, "clicks-each", "%.0f"},
		{"rod el.Click median", click, "rod-p50-ms", "%.2f ms"},
		{"Watcher.Act median", click, "tabguard-p50-ms", "%.2f ms"},
		{"median ratio (Watcher / rod)", click, "p50-ratio", "%.3f"},
		{"p95 ratio (Watcher / rod)", click, "p95-ratio", "%.3f"},
		{"A/A median ratio (rod odd / even blocks)", click, "aa-p50-ratio", "%.3f"},
		{"CDP requests a click, rod", click, "rod-requests", "%.2f"},
		{"CDP requests a click, Watcher.Act", click, "tabguard-requests", "%.2f"},
		{"allocations a click, rod", click, "rod-allocs", "%.0f"},
		{"allocations a click, Watcher.Act", click, "tabguard-allocs", "%.0f"},
	},
	goals: []goal{
		{"click on rod: median ratio Watcher.Act / el.Click at most 1.1", click, "p50-ratio", "%.3f", true, 1.1},
	},
}, {
	title: "Actions: a guarded click beside chromedp's",
	how: "chromedpguard's `Watcher.Click(ctx, \"#t\")` against plain chromedp, `chromedp.Run(ctx, " +
		"chromedp.Click(chromedp.CSS(\"#t\")))`, on the same button of a loaded tab, each finding the element every " +
		"time. Two more arms send only input at the button's centre, as `chromedp.MouseEvent` actions: the three " +
		"CDP Input events a click with a mouse move sends (a move, a press, a release) and the two a guarded click " +
		"and chromedp's click send (a press, a release). One call of each per iteration, in rotating order. The A/A row splits the " +
		"plain clicks into odd and even blocks of 20 iterations. After the timed clicks, the heap allocations of " +
		"20 clicks of each are counted, and the page's count of the clicks it received must equal the clicks made.",
	rows: []row{
		{"clicks of each", chromedpClick, "clicks-each", "%.0f"},
		{"chromedp.Click median", chromedpClick, "plain-p50-ms", "%.2f ms"},
		{"Watcher.Click median", chromedpClick, "guarded-p50-ms", "%.2f ms"},
		{"median ratio (Watcher / chromedp)", chromedpClick, "p50-ratio", "%.3f"},
		{"p95 ratio (Watcher / chromedp)", chromedpClick, "p95-ratio", "%.3f"},
		{"A/A median ratio (chromedp odd / even blocks)", chromedpClick, "aa-p50-ratio", "%.3f"},
		{"input alone: move, press, release, median", chromedpClick, "move-press-release-p50-ms", "%.2f ms"},
		{"input alone: press, release, median", chromedpClick, "press-release-p50-ms", "%.2f ms"},
		{"what the mouse move costs: median ratio (move, press, release / press, release)", chromedpClick, "move-ratio", "%.2f"},
		{"move, press, release alone / chromedp.Click, median", chromedpClick, "move-press-release/plain", "%.3f"},
		{"allocations a click, chromedp", chromedpClick, "plain-allocs", "%.0f"},
		{"allocations a click, Watcher.Click", chromedpClick, "guarded-allocs", "%.0f"},
	},
	goals: []goal{
		{"click on chromedp: median ratio Watcher.Click / chromedp.Click at most 1.1", chromedpClick, "p50-ratio", "%.3f", true, 1.1},
	},
	note: clickNote,
}, {
	title: "Snapshot of a page of 50,000 links",
	how: "`Watcher.Snapshot(ctx, tabguard.SnapshotOptions{})`, with its defaults (the first 500 elements in at " +
		"most 100 KiB, a notice saying how many there are and how to read on), on a page of 50,000 links from " +
		"127.0.0.1, over a connection that counts the bytes it reads; beside Playwright's `page.ariaSnapshot()` " +
		"(playwright-core 1.65.1, connected over CDP to the same browser, on the same page in a tab of its own), " +
		"which lists every element, in its default mode and in its `ai` mode (with refs, as an agent reads it). " +
		"Playwright's times are taken in its own process (`scripts/bench.d/ariasnapshot.mjs`). One snapshot of " +
		"each per iteration, in rotating order. Bytes are the snapshot's text in UTF-8: `Snapshot.String()`, " +
		"and the string `ariaSnapshot` answers. The Playwright side runs when scripts/bench has node and npm.",
	rows: []row{
		{"snapshots of each", snapshot, "snapshots-each", "%.0f"},
		{"elements on the page", snapshot, "elements-total", "%.0f"},
		{"elements a snapshot shows", snapshot, "elements-shown", "%.0f"},
		{"Watcher.Snapshot median", snapshot, "tabguard-p50-ms", "%.1f ms"},
		{"Watcher.Snapshot slowest", snapshot, "tabguard-max-ms", "%.1f ms"},
		{"Watcher.Snapshot text", snapshot, "tabguard-KiB", "%.1f KiB"},
		{"Watcher.Snapshot bytes read over CDP", snapshot, "wire-KiB", "%.1f KiB"},
		{"page.ariaSnapshot() median", snapshot, "playwright-p50-ms", "%.0f ms"},
		{"page.ariaSnapshot() slowest", snapshot, "playwright-max-ms", "%.0f ms"},
		{"page.ariaSnapshot() text", snapshot, "playwright-KiB", "%.0f KiB"},
		{"page.ariaSnapshot({mode: \"ai\"}) median", snapshot, "playwright-ai-p50-ms", "%.0f ms"},
		{"page.ariaSnapshot({mode: \"ai\"}) text", snapshot, "playwright-ai-KiB", "%.0f KiB"},
		{"median ratio (Watcher.Snapshot / ariaSnapshot)", snapshot, "playwright-time-ratio", "%.4f"},
		{"bytes ratio (Watcher.Snapshot / ariaSnapshot)", snapshot, "playwright-bytes-ratio", "%.4f"},
		{"median ratio (Watcher.Snapshot / ariaSnapshot ai)", snapshot, "playwright-ai-time-ratio", "%.4f"},
		{"bytes ratio (Watcher.Snapshot / ariaSnapshot ai)", snapshot, "playwright-ai-bytes-ratio", "%.4f"},
	},
	goals: []goal{
		{"snapshot: 50,000 links in under 1 s, median", snapshot, "tabguard-p50-ms", "%.1f ms", true, 999.999},
		{"snapshot: 50,000 links in at most 100 KiB of text", snapshot, "tabguard-KiB", "%.1f KiB", true, 100},
		{"snapshot: at most 0.1x page.ariaSnapshot()'s time, median", snapshot, "playwright-time-ratio", "%.4f", true, 0.1},
		{"snapshot: at most 0.1x page.ariaSnapshot()'s bytes", snapshot, "playwright-bytes-ratio", "%.4f", true, 0.1},
	},
}}

// clickNote says why a guarded click sends no mouse move: what a move
// would cost.
func clickNote(res *results) string {
	move, ok1 := res.get(chromedpClick, "move-ratio")
	alone, ok2 := res.get(chromedpClick, "move-press-release/plain")
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("A guarded click sends no mouse move before the press, as chromedp's click sends none: Chrome "+
		"sends the page the pointerover, mouseover and mouseenter of the element under a press itself. A move would cost "+
		"the most: Chrome answers it once the renderer has handled it, with its next frame, so the three events alone "+
		"take %.2fx the press and release, and %.3fx all of chromedp.Click.", move, alone)
}
