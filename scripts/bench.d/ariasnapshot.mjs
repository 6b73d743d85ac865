// ariasnapshot.mjs is BenchmarkSnapshot's Playwright side. It connects to
// the benchmark's Chromium over CDP (no browser of its own), opens a page
// of its own at --url, prints "ready", then answers each line it reads on
// stdin, a mode ("default" or "ai"), with one page.ariaSnapshot({mode})
// timed in this process: {"ms": ..., "bytes": ..., "lines": ...} on one
// line. At the end of stdin it closes its page and exits, leaving the
// browser to the benchmark.
//
//	node ariasnapshot.mjs --deps DIR --ws ws://127.0.0.1:PORT/devtools/browser/ID --url URL
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
	options: { deps: { type: "string" }, ws: { type: "string" }, url: { type: "string" } },
});
for (const k of ["deps", "ws", "url"]) {
	if (!args[k]) {
		console.error(`ariasnapshot: --${k} is required`);
		process.exit(2);
	}
}
const { chromium } = createRequire(args.deps + "/node_modules/")("playwright-core");

const browser = await chromium.connectOverCDP(args.ws);
const page = await browser.contexts()[0].newPage();
// The benchmark's own deadline bounds every step: Playwright's are off.
page.setDefaultTimeout(0);
await page.goto(args.url, { waitUntil: "load" });
console.log("ready");

for await (const line of createInterface({ input: process.stdin })) {
	const mode = line.trim();
	if (mode !== "default" && mode !== "ai") {
		console.error(`ariasnapshot: mode ${JSON.stringify(mode)}: send "default" or "ai"`);
		process.exit(2);
	}
	const start = performance.now();
	const snap = await page.ariaSnapshot({ mode });
	const ms = performance.now() - start;
	console.log(JSON.stringify({ ms, bytes: Buffer.byteLength(snap, "utf8"), lines: snap.split("\n").length }));
}
await page.close();
// Exit without browser.close(): the browser is the benchmark's.
process.exit(0);
