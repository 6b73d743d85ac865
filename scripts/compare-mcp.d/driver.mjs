// driver.mjs drives three MCP browser servers over stdio with the official
// MCP TypeScript SDK client through the same five faults, measures every
// call (its outcome and its time, each bounded by a client-side timeout),
// and writes the results as JSON and as Markdown. scripts/compare-mcp runs
// it; see the comment there. Every server runs on the system Chromium and
// every page comes from a server of this process on 127.0.0.1.
//
//   node driver.mjs --deps DIR --mcpserver BIN --chromium PATH --work DIR \
//     --json OUT.json --markdown OUT.md [--timeout 30] [--servers a,b] [--scenarios 1,2]
//
// Each scenario runs on a fresh server process (so a server wedged by one
// fault cannot spoil the next), opens a fresh tab there, and ends by closing
// the client; whatever that server and its browser leave running is killed
// by the marker in its environment, so the driver leaves nothing behind.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const opts = parseArgs(process.argv.slice(2));
const T = Number(opts.timeout ?? 30) * 1000; // every call's client-side timeout
let shownT = T; // the timeout the table names: the run's
const BUDGET = Number(opts.budget ?? 13 * 60) * 1000; // the whole run
const sdk = path.join(opts.deps, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
const { Client } = await import(pathToFileURL(path.join(sdk, 'client/index.js')).href);
const { StdioClientTransport } = await import(pathToFileURL(path.join(sdk, 'client/stdio.js')).href);
const { ErrorCode } = await import(pathToFileURL(path.join(sdk, 'types.js')).href);
const RUN = opts.run ?? `${process.pid}-${Date.now()}`;
const MARKER = 'TABGUARD_COMPARE_MCP';
const started = performance.now();

function parseArgs(argv) {
	const o = {};
	for (let i = 0; i < argv.length; i += 2) {
		if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
		o[argv[i].slice(2)] = argv[i + 1];
	}
	for (const k of o.render ? ['deps', 'markdown'] : ['deps', 'mcpserver', 'chromium', 'work', 'json', 'markdown']) {
		if (!o[k]) throw new Error(`missing --${k}`);
	}
	return o;
}

function log(...a) {
	const s = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
	console.error(`[compare-mcp ${s}s]`, ...a);
}

// ---------------------------------------------------------------------------
// Processes, read from /proc.

function readProc(pid, file) {
	try {
		return fs.readFileSync(`/proc/${pid}/${file}`);
	} catch {
		return null;
	}
}

// procs lists the live (not zombie) processes with their parent, command
// line and, when asked, whether their environment holds marker.
function procs(marker) {
	const out = [];
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		const stat = readProc(d, 'stat');
		if (!stat) continue;
		const s = stat.toString();
		const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
		if (f[0] === 'Z' || f[0] === 'X') continue;
		const p = { pid: Number(d), ppid: Number(f[1]), cmd: (readProc(d, 'cmdline') ?? Buffer.alloc(0)).toString().split('\0').join(' ').trim() };
		if (marker) {
			const env = readProc(d, 'environ');
			p.marked = env !== null && env.includes(`\0${MARKER}=${marker}\0`) || (env !== null && env.subarray(0, MARKER.length + marker.length + 2).toString() === `${MARKER}=${marker}\0`);
		}
		out.push(p);
	}
	return out;
}

function descendants(root) {
	const all = procs();
	const kids = new Map();
	for (const p of all) {
		if (!kids.has(p.ppid)) kids.set(p.ppid, []);
		kids.get(p.ppid).push(p);
	}
	const out = [];
	const stack = [root];
	while (stack.length) {
		for (const k of kids.get(stack.pop()) ?? []) {
			out.push(k);
			stack.push(k.pid);
		}
	}
	return out;
}

function marked(marker) {
	return procs(marker).filter(p => p.marked && p.pid !== process.pid);
}

function killAll(list) {
	for (const p of list) {
		try {
			process.kill(p.pid, 'SIGKILL');
		} catch {}
	}
}

// ---------------------------------------------------------------------------
// Pages, from 127.0.0.1 only.

const LIVE = 'compare-mcp live page';
const BIG_END = 'compare-mcp big page end';

// bigPage is a 5 MiB HTML page of about 2,000-byte paragraphs mixing 1-, 2-,
// 3- and 4-byte UTF-8 characters.
function bigPage() {
	const head = '<!doctype html><html><head><meta charset="utf-8"><title>compare-mcp big page</title></head><body><h1>compare-mcp big page</h1>\n';
	const tail = `<p>${BIG_END}</p></body></html>\n`;
	const words = ['plain', 'café', 'naïve', '€uro', 'Ωmega', '日本語', '한국어', '😀🎉', '𝄞music', 'ascii'];
	const paras = [];
	let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
	for (let i = 0; size < 5 * 1024 * 1024; i++) {
		const w = [];
		for (let j = 0; j < 400; j++) w.push(words[(i * 7 + j * 3) % words.length]);
		const p = `<p>${i} ${w.join(' ')}</p>\n`;
		paras.push(p);
		size += Buffer.byteLength(p);
	}
	return { html: head + paras.join('') + tail, paragraphs: paras.length + 1 };
}

async function startPages() {
	const { html, paragraphs } = bigPage();
	const big = Buffer.from(html);
	const live = Buffer.from(`<!doctype html><html><head><meta charset="utf-8"><title>${LIVE}</title></head><body><h1>${LIVE}</h1><p>Nothing to see; it answers.</p></body></html>\n`);
	const srv = http.createServer((req, res) => {
		const body = req.url.startsWith('/big') ? big : req.url.startsWith('/live') ? live : null;
		if (req.url === '/favicon.ico') {
			res.writeHead(204).end(); // no 404 in the console of every page
			return;
		}
		if (!body) {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-store' });
		res.end(body);
	});
	await new Promise(r => srv.listen(0, '127.0.0.1', r));
	const base = `http://127.0.0.1:${srv.address().port}`;
	// A port that was open a moment ago and is now closed: connection refused.
	const dead = net.createServer();
	await new Promise(r => dead.listen(0, '127.0.0.1', r));
	const deadPort = dead.address().port;
	await new Promise(r => dead.close(r));
	return { srv, live: `${base}/live`, big: `${base}/big`, bigBytes: big.length, bigParagraphs: paragraphs, dead: `http://127.0.0.1:${deadPort}/` };
}

// ---------------------------------------------------------------------------
// One server process and its client.

class Session {
	constructor(server, label) {
		this.server = server;
		this.marker = `${RUN}-${label}`;
		this.dir = path.join(opts.work, label);
		this.errors = []; // what the client's onerror saw
		this.closed = null; // when the transport closed on its own
		this.state = {};
	}

	async start() {
		fs.mkdirSync(path.join(this.dir, 'tmp'), { recursive: true });
		const env = {
			...process.env,
			[MARKER]: this.marker,
			TMPDIR: path.join(this.dir, 'tmp'),
			HOME: this.dir, // profiles and caches land here, not in the real home
			...this.server.env?.(this.dir),
		};
		this.transport = new StdioClientTransport({ command: this.server.command, args: this.server.args, env, cwd: this.dir, stderr: 'pipe' });
		const err = fs.createWriteStream(path.join(this.dir, 'stderr.log'));
		this.transport.stderr?.pipe(err);
		this.client = new Client({ name: 'tabguard-compare-mcp', version: '1.0.0' });
		this.client.onerror = e => this.errors.push(String(e?.message ?? e));
		this.client.onclose = () => {
			if (this.closed === null) this.closed = performance.now();
		};
		const t0 = performance.now();
		await within(this.client.connect(this.transport, { timeout: T }), T + 5000, 'initialize');
		this.pid = this.transport.pid;
		// The size of each message as it comes over the wire, newline to
		// newline: what the SDK's 10 MiB limit applies to.
		this.line = 0;
		this.maxLine = 0;
		this.transport._process?.stdout?.on('data', chunk => {
			for (let i = 0; ; ) {
				const j = chunk.indexOf(10, i);
				if (j < 0) {
					this.line += chunk.length - i;
					break;
				}
				this.maxLine = Math.max(this.maxLine, this.line + j - i);
				this.line = 0;
				i = j + 1;
			}
		});
		return performance.now() - t0;
	}

	// call runs one tool and says what came back and when: ok, error (a tool
	// error), timeout (no answer within T), closed (the connection went), or
	// rpc (a JSON-RPC error).
	async call(tool, args = {}) {
		const rec = { tool, args: abbreviate(args) };
		this.maxLine = 0;
		const t0 = performance.now();
		try {
			const r = await within(this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: T }), T + 5000, tool);
			rec.ms = performance.now() - t0;
			rec.kind = r.isError ? 'error' : 'ok';
			rec.text = (r.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
			rec.structured = r.structuredContent;
			rec.bytes = Buffer.byteLength(rec.text);
		} catch (e) {
			rec.ms = performance.now() - t0;
			rec.text = String(e?.message ?? e);
			if (e?.code === ErrorCode.RequestTimeout || e?.backstop) rec.kind = 'timeout';
			else if (e?.code === ErrorCode.ConnectionClosed || /Not connected|Connection closed/i.test(rec.text)) rec.kind = 'closed';
			else rec.kind = 'rpc';
			if (this.errors.length) rec.clientErrors = [...new Set(this.errors)].slice(0, 3);
		}
		rec.wireBytes = Math.max(this.maxLine, this.line);
		log(`${this.server.key} ${tool}: ${rec.kind} in ${Math.round(rec.ms)} ms: ${oneLine(rec.text).slice(0, 160)}`);
		return rec;
	}

	// browserExe is the executable of the browser this server started.
	browserExe() {
		for (const p of descendants(this.pid)) {
			if (/--type=/.test(p.cmd)) continue;
			try {
				const exe = fs.readlinkSync(`/proc/${p.pid}/exe`);
				if (/chrom/i.test(path.basename(exe))) return exe;
			} catch {}
		}
		return null;
	}

	// killRenderers SIGKILLs every renderer process of this server's browser.
	killRenderers() {
		const r = descendants(this.pid).filter(p => / --type=renderer( |$)/.test(` ${p.cmd} `) || p.cmd.includes('--type=renderer'));
		killAll(r);
		return r.map(p => p.pid);
	}

	// close ends the client the SDK's way (stdin closed, then SIGTERM, then
	// SIGKILL, 2 s apart), measures when the server process was gone, and
	// counts what of it was still running a second later; then kills that.
	async close() {
		const pid = this.pid;
		const t0 = performance.now();
		const res = {};
		try {
			await within(this.client.close(), 10000, 'close');
		} catch {}
		while (pid && fs.existsSync(`/proc/${pid}/stat`) && !/\) [ZX] /.test(readProc(pid, 'stat')?.toString() ?? ') Z ') && performance.now() - t0 < 6000) await sleep(20);
		res.exitMs = performance.now() - t0;
		await sleep(1000);
		const left = marked(this.marker);
		res.left = left.length;
		res.leftCmds = left.slice(0, 5).map(p => p.cmd.slice(0, 100));
		killAll(left);
		await sleep(200);
		killAll(marked(this.marker));
		return res;
	}
}

function within(p, ms, what) {
	let timer;
	return Promise.race([
		p,
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(Object.assign(new Error(`no answer to ${what} within ${ms / 1000} s (driver backstop)`), { backstop: true })), ms);
		}),
	]).finally(() => clearTimeout(timer));
}

function abbreviate(args) {
	const o = {};
	for (const [k, v] of Object.entries(args)) o[k] = typeof v === 'string' && v.length > 80 ? v.slice(0, 77) + '...' : v;
	return o;
}

function oneLine(s) {
	return String(s ?? '').replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------
// The servers: how each opens a tab, reads it, navigates, evaluates and
// handles a dialog, through its own tools.

function servers() {
	const nm = path.join(opts.deps, 'node_modules');
	const ver = p => JSON.parse(fs.readFileSync(path.join(nm, p, 'package.json'))).version;
	return [
		{
			key: 'tabguard',
			label: 'examples/mcpserver',
			version: 'this repo',
			command: opts.mcpserver,
			args: [],
			// It runs the first Chromium rod's launcher.LookPath finds, and
			// "chrome" on PATH comes first: make that the one asked for.
			env: dir => {
				const bin = path.join(dir, 'bin');
				fs.mkdirSync(bin, { recursive: true });
				fs.symlinkSync(opts.chromium, path.join(bin, 'chrome'));
				return { PATH: `${bin}:${process.env.PATH}` };
			},
			open: async (s, url) => {
				const r = await s.call('open_tab', { url });
				s.state.tab = r.structured?.tab ?? /tab (\S+?):/.exec(r.text)?.[1];
				return r;
			},
			read: s => s.call('get_tab_dom', { tab: s.state.tab }),
			navigate: (s, url) => s.call('navigate', { tab: s.state.tab, url }),
			recoverCrash: s => s.call('reload_tab', { tab: s.state.tab }),
			evaluate: (s, fn) => s.call('eval_in_tab', { tab: s.state.tab, js: fn }),
			dialog: s => s.call('handle_dialog', { tab: s.state.tab, accept: true }),
			list: s => s.call('list_tabs', {}),
		},
		{
			key: 'playwright',
			label: '@playwright/mcp',
			version: ver('@playwright/mcp'),
			command: process.execPath,
			args: [path.join(nm, '@playwright/mcp/cli.js'), '--headless', '--isolated', '--no-sandbox', '--executable-path', opts.chromium],
			// A fresh server has no tab; its first navigation opens one.
			open: (s, url) => s.call('browser_navigate', { url }),
			read: s => s.call('browser_snapshot', {}),
			navigate: (s, url) => s.call('browser_navigate', { url }),
			recoverCrash: (s, url) => s.call('browser_navigate', { url }),
			evaluate: (s, fn) => s.call('browser_evaluate', { function: fn }),
			dialog: s => s.call('browser_handle_dialog', { accept: true }),
			list: s => s.call('browser_tabs', { action: 'list' }),
		},
		{
			key: 'devtools',
			label: 'chrome-devtools-mcp',
			version: ver('chrome-devtools-mcp'),
			command: process.execPath,
			args: [
				path.join(nm, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'),
				'--headless',
				'--isolated',
				'--executablePath',
				opts.chromium,
				'--chromeArg=--no-sandbox', // Chromium refuses to run as root with its sandbox
				'--no-usage-statistics',
				'--no-performance-crux',
			],
			open: async (s, url) => {
				const r = await s.call('new_page', { url });
				const m = /^(\d+): .*\[selected\]/m.exec(r.text ?? '');
				s.state.pageId = m ? Number(m[1]) : undefined;
				return r;
			},
			read: s => s.call('take_snapshot', { pageId: s.state.pageId }),
			navigate: (s, url) => s.call('navigate_page', { pageId: s.state.pageId, type: 'url', url }),
			recoverCrash: (s, url) => s.call('navigate_page', { pageId: s.state.pageId, type: 'url', url }),
			evaluate: (s, fn) => s.call('evaluate_script', { pageId: s.state.pageId, function: fn }),
			dialog: s => s.call('handle_dialog', { pageId: s.state.pageId, action: 'accept' }),
			list: s => s.call('list_pages', {}),
		},
	];
}

// ---------------------------------------------------------------------------
// The scenarios. Each returns its steps; a step is a call's record, with
// `expect` naming what a working answer holds, or a note of what the driver
// itself did.

const ALERT = 'hello from compare-mcp';

// Steps carry `expect`: a string a working answer holds, and `says`, how
// the table words that it did.
const pageAt = url => ({ has: url, says: 'at the page' });
const thePage = { has: LIVE, says: 'the page' };
const two = { has: '2', says: 'returned 2' };

const SCENARIOS = [
	{
		n: 1,
		title: 'Crashed renderer',
		how: "the driver SIGKILLs every process with `--type=renderer` among the server's descendants (its browser's renderers), waits 1 s and reads; the recovery is the server's reload or navigation tool",
		run: async (srv, s, pages) => {
			const steps = [];
			steps.push({ step: 'open a fresh tab at a live page', expect: pageAt(pages.live), ...(await srv.open(s, pages.live)) });
			const killed = s.killRenderers();
			steps.push({ step: 'SIGKILL the renderers', note: `${killed.length} killed` });
			await sleep(1000);
			steps.push({ step: 'read the page', expect: thePage, ...(await srv.read(s)) });
			steps.push({ step: 'recover', expect: pageAt(pages.live), ...(await srv.recoverCrash(s, pages.live)) });
			steps.push({ step: 'read again', expect: thePage, ...(await srv.read(s)) });
			return steps;
		},
	},
	{
		n: 2,
		title: 'Dead URL',
		how: 'navigate the tab to a 127.0.0.1 port that was just closed (connection refused) and read it; recover by navigating to a live page',
		run: async (srv, s, pages) => {
			const steps = [];
			steps.push({ step: 'open a fresh tab at a live page', expect: pageAt(pages.live), ...(await srv.open(s, pages.live)) });
			steps.push({ step: 'navigate to the dead URL', ...(await srv.navigate(s, pages.dead)) });
			steps.push({ step: 'read the page', ...(await srv.read(s)) });
			steps.push({ step: 'recover: navigate to a live page', expect: pageAt(pages.live), ...(await srv.navigate(s, pages.live)) });
			steps.push({ step: 'read again', expect: thePage, ...(await srv.read(s)) });
			return steps;
		},
	},
	{
		n: 3,
		title: 'Open alert',
		how: `the eval tool schedules \`alert("${ALERT}")\` for 1 s later and returns (chrome-devtools-mcp's evaluate_script accepts a dialog that opens while it runs, so the alert must come after); 2 s after that answer the driver reads, accepts the dialog with the server's dialog tool and reads again`,
		run: async (srv, s, pages) => {
			const steps = [];
			steps.push({ step: 'open a fresh tab at a live page', expect: pageAt(pages.live), ...(await srv.open(s, pages.live)) });
			steps.push({
				step: 'eval: schedule the alert',
				expect: { has: 'scheduled', says: 'returned "scheduled"' },
				...(await srv.evaluate(s, `() => { setTimeout(() => alert(${JSON.stringify(ALERT)}), 1000); return "scheduled"; }`)),
			});
			await sleep(2000);
			steps.push({ step: 'read the page', expect: thePage, ...(await srv.read(s)) });
			steps.push({ step: 'recover: accept the dialog', ...(await srv.dialog(s)) });
			steps.push({ step: 'read again', expect: thePage, ...(await srv.read(s)) });
			return steps;
		},
	},
	{
		n: 4,
		title: 'Runaway script',
		how: 'the eval tool runs `() => { while (true) {} }`, then `() => 1 + 1`; where that does not return 2, the driver navigates to a live page and evals `() => 1 + 1` once more',
		run: async (srv, s, pages) => {
			const steps = [];
			steps.push({ step: 'open a fresh tab at a live page', expect: pageAt(pages.live), ...(await srv.open(s, pages.live)) });
			steps.push({ step: 'eval `while (true) {}`', ...(await srv.evaluate(s, '() => { while (true) {} }')) });
			const second = await srv.evaluate(s, '() => 1 + 1');
			steps.push({ step: 'eval `1 + 1`', expect: two, ...second });
			if (second.kind === 'ok' && has(second.text, '2')) {
				steps.push({ step: 'recover: navigate to a live page', note: 'not needed' });
				steps.push({ step: 'eval `1 + 1` again', note: 'not needed' });
			} else {
				steps.push({ step: 'recover: navigate to a live page', expect: pageAt(pages.live), ...(await srv.navigate(s, pages.live)) });
				steps.push({ step: 'eval `1 + 1` again', expect: two, ...(await srv.evaluate(s, '() => 1 + 1')) });
			}
			return steps;
		},
	},
	{
		n: 5,
		title: '5 MB page',
		how: pages => `a ${size(pages.bigBytes)} page (${pages.bigParagraphs} paragraphs mixing 1- to 4-byte UTF-8 characters); one read with the server's defaults, then the tab-listing tool, to see whether the session survived. Sizes are UTF-8 bytes: of the answer's text, and of the whole JSON-RPC message as it came over stdio, where the SDK client drops anything over 10 MiB`,
		run: async (srv, s, pages) => {
			const steps = [];
			steps.push({ step: 'open a fresh tab at the 5 MiB page', expect: pageAt(pages.big), ...(await srv.open(s, pages.big)) });
			steps.push({ step: 'read the page', big: true, ...(await srv.read(s)) });
			steps.push({ step: 'list tabs: is the session alive?', expect: { has: pages.big, says: 'it is' }, ...(await srv.list(s)) });
			return steps;
		},
	},
];

function has(text, want) {
	return String(text ?? '').includes(want);
}

// ---------------------------------------------------------------------------
// Markdown.

function dur(ms) {
	if (ms < 1000) return `${Math.round(ms)} ms`;
	return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

function size(b) {
	if (b < 1024) return `${b} B`;
	if (b < 1024 * 1024) return `${(b / 1024).toFixed(1)} KiB`;
	return `${(b / 1024 / 1024).toFixed(2)} MiB`;
}

function esc(s, n = 160) {
	let t = oneLine(s);
	if (t.length > n) t = t.slice(0, n - 1) + '…';
	return t.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, "'").replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*');
}

// gist picks the lines of an answer that say what happened, past the
// headers, code echoes and links that some servers wrap every answer in.
function gist(text) {
	const t = String(text ?? '');
	const lines = t.split('\n').map(l => l.trim()).filter(Boolean);
	const said = [];
	const signal = /error|crash|refused|dialog|modal|unable|timed out|can.t be reached|not |no |reset|terminated|script|value/i;
	for (const l of lines) {
		if (/^(#+ |```|Call log:|\[|await |- \[Snapshot\]|- New console entries|- Console:)/.test(l) || /\x1b/.test(l)) continue;
		if (signal.test(l) || /^- Page URL: /.test(l)) said.push(l.replace(/^- /, ''));
	}
	const url = /url="([^"]+)"/.exec(t);
	if (url && !said.some(l => l.includes(url[1]))) said.push(`url ${url[1]}`);
	if (/```yaml\s*```/.test(t)) said.push('an empty snapshot');
	if (!said.length) said.push(lines.find(l => !/^(#+ |```)/.test(l)) ?? '');
	return [...new Set(said)].join(' · ');
}

function cell(st) {
	if (st.note) return st.note;
	const tool = `\`${st.tool}\``;
	switch (st.kind) {
		case 'timeout':
			return `${tool}: **no answer within ${shownT / 1000} s**`;
		case 'closed':
			return `${tool}: **connection closed** after ${dur(st.ms)}${st.wireBytes ? ` (a message of ${size(st.wireBytes)} or more)` : ''}${st.clientErrors ? `: ${esc(st.clientErrors.join('; '), 120)}` : ''}`;
		case 'rpc':
			return `${tool}: JSON-RPC error in ${dur(st.ms)}: ${esc(st.text)}`;
		case 'error':
			return `${tool}: tool error in ${dur(st.ms)}: ${esc(gist(st.text))}`;
	}
	let out = `${tool}: answered in ${dur(st.ms)}`;
	if (st.big) {
		out += `: ${size(st.bytes)} of text in a ${size(st.wireBytes)} message`;
		out += has(st.text, BIG_END) ? ', the whole page' : '';
		const m = /cut: bytes (\d+)-(\d+)( of (\d+))?/.exec(st.text);
		if (m) out += `, bytes ${m[1]}-${m[2]} of the page${m[4] ? ` of ${m[4]}` : ''} and how to read on`;
		return out;
	}
	if (st.expect && has(st.text, st.expect.has)) return `${out}, ${st.expect.says}`;
	if (st.expect) return `${out}, **${st.expect.says === thePage.says ? 'not the page' : 'not as expected'}**: ${esc(gist(st.text))}`;
	const g = gist(st.text);
	return signalOf(g) ? `${out}: ${esc(g)}` : out;
}

function signalOf(g) {
	return /error|crash|refused|unable|can.t be reached|chrome-error|not |reset/i.test(g);
}

function markdown(res) {
	shownT = res.timeoutMs ?? T;
	const srvs = res.servers;
	const out = [];
	out.push('### Against other MCP browser servers');
	out.push('');
	out.push(
		"`scripts/compare-mcp` (not run by CI: it installs the peers from npm, and no browser) drives `examples/mcpserver` and two widely used MCP browser servers through the same five faults and the recovery each server offers, with the official MCP TypeScript SDK client, and writes what follows. Every number in it was measured by the run that wrote it; each cell is the tool called, what came back and when.",
	);
	out.push('');
	out.push(`Measured by \`scripts/compare-mcp\` on ${res.date}: ${srvs.map(s => `${s.label} ${s.version === 'this repo' ? `(this repo, ${res.commit ?? 'working tree'})` : s.version}`).join(', ')}, each driven over stdio by the client of @modelcontextprotocol/sdk ${res.sdk} on Node ${res.node}, each on ${res.chromium} (the browser process of every server was ${[...new Set(res.browserExes)].join(', ') || 'not found'}). Every call has a client-side timeout of ${shownT / 1000} s. Each scenario runs on a fresh server process, with a fresh tab.`);
	for (const sc of res.scenarios) {
		out.push('');
		out.push(`**${sc.n}. ${sc.title}**: ${sc.how}.`);
		out.push('');
		out.push(`| step | ${srvs.map(s => s.label).join(' | ')} |`);
		out.push(`|---|${srvs.map(() => '---').join('|')}|`);
		const rows = [];
		const failed = { step: 'the run stopped', cells: {} };
		for (const s of srvs) {
			const r = sc.results[s.key];
			(r.steps ?? []).forEach((st, i) => {
				rows[i] ??= { step: st.step, cells: {} };
				rows[i].cells[s.key] = cell(st);
			});
			if (r.failed) failed.cells[s.key] = esc(r.failed, 300);
		}
		if (Object.keys(failed.cells).length) rows.push(failed);
		for (const row of rows) out.push(`| ${row.step} | ${srvs.map(s => row.cells[s.key] ?? '').join(' | ')} |`);
	}
	out.push('');
	out.push(`**Start and stop**, over the ${res.scenarios.length} server processes of each: the initialize handshake; after the client closed stdin (the SDK sends SIGTERM 2 s later and SIGKILL 2 s after that), when the server process was gone; and how many processes of the server and its browser were still running 1 s after that (the driver then killed them).`);
	out.push('');
	out.push(`| | ${srvs.map(s => s.label).join(' | ')} |`);
	out.push(`|---|${srvs.map(() => '---').join('|')}|`);
	const st = key => res.scenarios.map(sc => sc.results[key]).filter(r => r && r.startMs !== undefined);
	const range = xs => (xs.length ? (xs.length === 1 ? dur(xs[0]) : `${dur(Math.min(...xs))} to ${dur(Math.max(...xs))}`) : 'n/a');
	out.push(`| initialize | ${srvs.map(s => range(st(s.key).map(r => r.startMs))).join(' | ')} |`);
	out.push(`| gone after stdin closed | ${srvs.map(s => range(st(s.key).filter(r => r.close).map(r => r.close.exitMs))).join(' | ')} |`);
	out.push(
		`| processes left 1 s later | ${srvs
			.map(s => {
				const xs = st(s.key).filter(r => r.close).map(r => r.close.left);
				return xs.length ? (Math.max(...xs) === 0 ? 'none' : `up to ${Math.max(...xs)}`) : 'n/a';
			})
			.join(' | ')} |`,
	);
	out.push('');
	out.push(`The whole run took ${dur(res.totalMs)}; it keeps every answer in full in \`results.json\` beside its npm install.`);
	return out.join('\n') + '\n';
}

async function main() {
	if (opts.render) {
		// Only the Markdown again, from the JSON of an earlier run.
		fs.writeFileSync(opts.markdown, markdown(JSON.parse(fs.readFileSync(opts.render))));
		return;
	}
	const want = opts.servers ? opts.servers.split(',') : null;
	const wantSc = opts.scenarios ? opts.scenarios.split(',').map(Number) : null;
	const srvs = servers().filter(s => !want || want.includes(s.key));
	const scs = SCENARIOS.filter(s => !wantSc || wantSc.includes(s.n));
	const pages = await startPages();
	log(`pages at ${pages.live}, ${pages.big} (${pages.bigBytes} bytes), dead ${pages.dead}`);
	const res = {
		date: new Date().toISOString().slice(0, 10),
		node: process.version,
		sdk: JSON.parse(fs.readFileSync(path.join(opts.deps, 'node_modules/@modelcontextprotocol/sdk/package.json'))).version,
		chromium: opts['chromium-version'] ?? 'Chromium',
		commit: opts.commit,
		timeoutMs: T,
		servers: srvs.map(({ key, label, version }) => ({ key, label, version })),
		browserExes: [],
		scenarios: [],
	};
	const live = new Set();
	const watchdog = setTimeout(() => {
		log(`the run's budget of ${BUDGET / 1000} s is spent: killing everything`);
		for (const m of live) killAll(marked(m));
		process.exit(3);
	}, BUDGET);
	for (const sc of scs) {
		const entry = { n: sc.n, title: sc.title, how: typeof sc.how === 'function' ? sc.how(pages) : sc.how, results: {} };
		res.scenarios.push(entry);
		for (const srv of srvs) {
			log(`scenario ${sc.n} (${sc.title}) on ${srv.label}`);
			const s = new Session(srv, `${srv.key}-${sc.n}`);
			live.add(s.marker);
			const r = (entry.results[srv.key] = {});
			try {
				r.startMs = await s.start();
				r.steps = await sc.run(srv, s, pages);
				const exe = s.browserExe();
				if (exe) res.browserExes.push(exe);
			} catch (e) {
				r.failed = String(e?.message ?? e);
				log(`scenario ${sc.n} on ${srv.label} failed: ${e?.stack ?? e}`);
			}
			r.stderrTail = tail(path.join(s.dir, 'stderr.log'));
			if (r.failed) {
				const last = r.stderrTail.trim().split('\n').at(-1);
				if (last) r.failed += ` (the server's stderr ends: ${last})`;
			}
			r.close = await s.close();
			live.delete(s.marker);
		}
	}
	clearTimeout(watchdog);
	pages.srv.close();
	res.totalMs = performance.now() - started;
	fs.writeFileSync(opts.json, JSON.stringify(res, null, 1));
	fs.writeFileSync(opts.markdown, markdown(res));
	log(`wrote ${opts.json} and ${opts.markdown}`);
}

function tail(file) {
	try {
		const s = fs.readFileSync(file, 'utf8');
		return s.slice(-2000);
	} catch {
		return '';
	}
}

await main();
process.exit(0);
