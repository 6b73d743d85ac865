// Package pagejs holds the scripts the watchers run in a page to read its
// DOM: they measure and slice the HTML where it is, so only a window of it
// crosses the CDP socket. Every backend evaluates the same text.
package pagejs

// DOM measures and slices outerHTML inside the page, so only about
// maxBytes cross the CDP socket. An all-ASCII page (the common case) needs
// no encoding at all. Otherwise TextEncoder counts the exact UTF-8 size,
// chunk by chunk into one reused buffer: encoding the whole text at once
// would allocate its full UTF-8 copy, which for a 5 MB page costs more than
// serialising it. A chunk never ends inside a surrogate pair, and 3 bytes a
// UTF-16 unit is the most UTF-8 needs, so each chunk fits the buffer.
// encodeInto then finds the longest prefix that fits without splitting a
// rune: it stops before a code point that would not fit, and max+1 UTF-16
// units always hold at least max bytes.
const DOM = `(max) => {
	const root = document.documentElement;
	const h = root ? root.outerHTML : "";
	const ascii = !/[^\x00-\x7f]/.test(h);
	let size = h.length;
	if (!ascii) {
		const chunk = 16384, enc = new TextEncoder(), buf = new Uint8Array(3 * chunk);
		size = 0;
		for (let i = 0; i < h.length;) {
			let j = Math.min(i + chunk, h.length);
			const c = h.charCodeAt(j - 1);
			if (j < h.length && c >= 0xd800 && c <= 0xdbff) j--;
			size += enc.encodeInto(h.slice(i, j), buf).written;
			i = j;
		}
	}
	if (size <= max) return {size, head: h};
	if (ascii) return {size, head: h.slice(0, max)};
	const {read} = new TextEncoder().encodeInto(h.slice(0, max + 1), new Uint8Array(max));
	return {size, head: h.slice(0, read)};
}`

// Window serialises the page once and keeps the text in the page, so
// consecutive windows come from one serialisation and only a window
// crosses the CDP socket, base64-encoded (a third over the window's bytes,
// where JSON escapes of non-ASCII text would double them). A snapshot is
// kept for SnapshotTTL seconds after its last read, three at most, and
// dropped once read to the end; a MutationObserver notes a change of the
// page meanwhile. Byte offsets map to string indexes by the marks each
// window leaves for the next; any other offset is found by encoding from
// the start. encodeInto never splits a code point.
const Window = `(op, ttl, keep) => {
	const K = Symbol.for("tabguard.dom"), enc = new TextEncoder();
	const store = globalThis[K] || (globalThis[K] = {n: 0, snaps: new Map()});
	const drop = (s) => { clearTimeout(s.timer); if (s.obs) s.obs.disconnect(); store.snaps.delete(s.id); };
	let s;
	if (op.snapshot) {
		s = store.snaps.get(op.snapshot);
		if (!s) return {gone: true};
	} else {
		let h;
		if (op.selector) {
			let els;
			try { els = document.querySelectorAll(op.selector); } catch (e) { return {badSelector: String(e.message)}; }
			if (!els.length) return {noMatch: true};
			h = Array.from(els, e => op.text ? e.innerText : e.outerHTML).join("\n");
		} else if (op.text) {
			h = document.body ? document.body.innerText : "";
		} else {
			h = document.documentElement ? document.documentElement.outerHTML : "";
		}
		// An all-ASCII text's size is its length. Otherwise counting the
		// exact UTF-8 size of 5 MB takes a third as long as serialising it,
		// so it runs after this window has answered: the next window has it.
		let size = h.length;
		const count = () => {
			const chunk = 65536, buf = new Uint8Array(3 * chunk);
			let n = 0;
			for (let i = 0; i < h.length;) {
				let j = Math.min(i + chunk, h.length);
				const c = h.charCodeAt(j - 1);
				if (j < h.length && c >= 0xd800 && c <= 0xdbff) j--;
				n += enc.encodeInto(h.slice(i, j), buf).written;
				i = j;
			}
			return n;
		};
		if (/[^\x00-\x7f]/.test(h)) size = -1;
		s = {id: "s" + (++store.n), h, size, marks: new Map([[0, 0]]), changed: false};
		if (typeof MutationObserver === "function") {
			s.obs = new MutationObserver(() => { s.changed = true; s.obs.disconnect(); s.obs = null; });
			s.obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
		}
		store.snaps.set(s.id, s);
		for (const old of store.snaps.values()) if (store.snaps.size > keep) drop(old);
		if (size < 0) setTimeout(() => { if (s.size < 0) s.size = count(); }, 0);
	}
	clearTimeout(s.timer);
	s.timer = setTimeout(() => drop(s), ttl * 1000);
	let i = s.marks.get(op.offset);
	if (i === undefined) {
		if (s.size >= 0 && op.offset > s.size) return {badOffset: true, size: s.size};
		const buf = new Uint8Array(op.offset + 4);
		const r = enc.encodeInto(s.h, buf.subarray(0, op.offset));
		if (r.written !== op.offset) return {badOffset: true, size: s.size};
		i = r.read;
	}
	const out = new Uint8Array(op.max);
	const {read, written} = enc.encodeInto(s.h.slice(i, i + op.max), out);
	const end = i + read >= s.h.length;
	if (end) s.size = op.offset + written;
	let bin = "";
	for (let k = 0; k < written; k += 8192) bin += String.fromCharCode.apply(null, out.subarray(k, Math.min(k + 8192, written)));
	const res = {id: s.id, size: s.size, changed: s.changed, next: end ? 0 : op.offset + written, b64: btoa(bin)};
	if (end) drop(s); else s.marks.set(op.offset + written, i + read);
	return res;
}`
