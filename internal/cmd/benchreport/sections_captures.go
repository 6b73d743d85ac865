package main

import (
	"fmt"
	"strings"
)

const (
	screenshot = "BenchmarkScreenshot"
	pdfDoc     = "BenchmarkPDF/page=doc"
	pdfImages  = "BenchmarkPDF/page=images"
)

// captureSections are the claims about captures: what the guard costs a
// screenshot, and what streaming a PDF costs in time and saves in memory.
var captureSections = []section{{
	title: "Captures: screenshot overhead",
	how: "`Watcher.Screenshot(ctx, false, nil)` against rod's `page.Screenshot(false, nil)`, both of the viewport " +
		"as PNG, on the same loaded tab in front (`Page.bringToFront`), in a browser of the benchmark's own: one " +
		"of each per iteration, in alternating order. The A/A row splits the rod screenshots into odd and even " +
		"blocks of 10 iterations. After the timed calls, the heap allocations of 20 screenshots of each are " +
		"counted (the whole process's).",
	rows: []row{
		{"screenshots of each", screenshot, "shots-each", "%.0f"},
		{"PNG size", screenshot, "png-KB", "%.1f KiB"},
		{"rod page.Screenshot median", screenshot, "rod-p50-ms", "%.2f ms"},
		{"Watcher.Screenshot median", screenshot, "tabguard-p50-ms", "%.2f ms"},
		{"median ratio (Watcher / rod)", screenshot, "p50-ratio", "%.3f"},
		{"p95 ratio (Watcher / rod)", screenshot, "p95-ratio", "%.3f"},
		{"A/A median ratio (rod odd / even blocks)", screenshot, "aa-p50-ratio", "%.3f"},
		{"allocations a call, rod", screenshot, "rod-allocs", "%.1f"},
		{"allocations a call, Watcher", screenshot, "tabguard-allocs", "%.1f"},
		{"bytes allocated a call, rod", screenshot, "rod-B/op", "%.0f B"},
		{"bytes allocated a call, Watcher", screenshot, "tabguard-B/op", "%.0f B"},
	},
	goals: []goal{
		{"screenshot: median ratio Watcher.Screenshot / page.Screenshot at most 1.03", screenshot, "p50-ratio", "%.3f", true, 1.03},
	},
}, {
	title: "Captures: PDF streamed or in one message",
	how: "A PDF of 50 printed pages taken in one CDP message (`proto.PagePrintToPDF{}.Call(page)`, Chrome's " +
		"default transfer mode: the whole document base64 encoded in the reply) against `Watcher.PDFTo(ctx, " +
		"io.Discard, nil)`, which asks for a stream and reads it `Options.PDFChunk` (64 KiB by default) at a time (`IO.read`); and, to tell " +
		"Chrome's share of the difference from the library's, the same stream read with rod's proto calls " +
		"alone (\"rod stream\", its `IO.close` after the timed part, as PDFTo closes in the background). The " +
		"same tab in front, one PDF of each kind per iteration, in rotating order. Two pages: doc, text and CSS " +
		"gradients, a PDF that one read carries; images, each printed page with a 160×160 image of noise, a " +
		"PDF of several MiB. The bytes each call allocates are the whole process's, read around the call; the " +
		"peak is the largest heap (objects, live or not yet swept) above a collected heap, sampled every " +
		"200 µs over 3 calls of each after the timed ones.",
	rows: append(pdfRows("doc", pdfDoc), pdfRows("images", pdfImages)...),
	goals: []goal{
		{"PDF: median ratio streamed / one message at most 1.05, doc", pdfDoc, "p50-ratio", "%.3f", true, 1.05},
		{"PDF: median ratio streamed / one message at most 1.05, images", pdfImages, "p50-ratio", "%.3f", true, 1.05},
		{"PDF: streamed peak heap at most half one message's, images", pdfImages, "peak-ratio", "%.3f", true, 0.5},
	},
	note: pdfNote,
}}

// pdfRows are BenchmarkPDF's figures on one page.
func pdfRows(page, bench string) []row {
	return []row{
		{"PDFs of each, " + page, bench, "pdfs-each", "%.0f"},
		{"PDF size, " + page, bench, "pdf-MB", "%.3f MiB"},
		{"one message, median, " + page, bench, "one-message-p50-ms", "%.1f ms"},
		{"rod stream, median, " + page, bench, "rod-stream-p50-ms", "%.1f ms"},
		{"PDFTo, median, " + page, bench, "streamed-p50-ms", "%.1f ms"},
		{"median ratio PDFTo / one message, " + page, bench, "p50-ratio", "%.3f"},
		{"median ratio rod stream / one message (Chrome's share), " + page, bench, "rod-stream-p50-ratio", "%.3f"},
		{"median ratio PDFTo / rod stream (the library's share), " + page, bench, "streamed/rod-stream", "%.3f"},
		{"bytes allocated a PDF, one message, " + page, bench, "one-message-B/op", "%.0f B"},
		{"bytes allocated a PDF, rod stream, " + page, bench, "rod-stream-B/op", "%.0f B"},
		{"bytes allocated a PDF, PDFTo, " + page, bench, "streamed-B/op", "%.0f B"},
		{"peak heap, one message, " + page, bench, "one-message-peak-MB", "%.2f MiB"},
		{"peak heap, rod stream, " + page, bench, "rod-stream-peak-MB", "%.2f MiB"},
		{"peak heap, PDFTo, " + page, bench, "streamed-peak-MB", "%.2f MiB"},
	}
}

// pdfNote splits PDFTo's distance from one message into Chrome's share
// (its stream mode, as rod reads it) and the library's, on each page.
func pdfNote(res *results) string {
	var parts []string
	for _, p := range [][2]string{{"doc", pdfDoc}, {"images", pdfImages}} {
		all, ok1 := res.get(p[1], "p50-ratio")
		chrome, ok2 := res.get(p[1], "rod-stream-p50-ratio")
		lib, ok3 := res.get(p[1], "streamed/rod-stream")
		bytes, ok4 := res.get(p[1], "streamed/rod-stream-B")
		if ok1 && ok2 && ok3 && ok4 {
			parts = append(parts, fmt.Sprintf("on %s, PDFTo / one message %.3f is Chrome's stream mode, %.3f, times the "+
				"library's share, %.3f; PDFTo allocates %.2fx the bytes of rod's own read of the same stream", p[0], all, chrome, lib, bytes))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Medians: " + strings.Join(parts, "; ") + "."
}
