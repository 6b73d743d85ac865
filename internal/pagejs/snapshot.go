package pagejs

// Snapshot lists, in document order, the elements of one document that a
// user acts on or reads by: links, buttons, form fields, [role] widgets,
// editable and clickable elements, headings, images with alt text and
// labelled landmarks. Hidden ones (display:none, visibility:hidden, no
// box: what checkVisibility tells, the one check cheap enough for every
// element of a big page) are left out; those outside the viewport are
// kept and marked.
//
// The walk counts every match but builds only the window op asks for:
// it skips the first op.offset, then builds until op.max elements or
// op.maxBytes bytes of their lines (as SnapshotElement.String renders
// them, in UTF-8), and past that only counts. So a 100,000-element page
// costs a count, and the reply is bounded whatever the page holds.
//
// Each element built gets a ref from the document's registry (Refs):
// the one it has, or "e" and the next number. A new registry starts at
// op.base. op.selector scopes the walk to the subtrees it matches. op.first
// says no frame before this one showed an element: the window then holds
// at least one, whatever its size.
//
// It answers {total, n, cut, els: [{r, o, n, v, f, x, y, w, h}]}: n is
// the registry's last number, cut "count" or "bytes" when the window
// stopped short; an element is its ref, role, name, value, flags
// (1 disabled, 2 checked, 4 unchecked, 8 mixed, 16 expanded,
// 32 collapsed, 64 focused, 128 offscreen) and box in viewport CSS
// pixels. A bad selector answers {badSelector}; one that matches
// nothing, {noMatch: true}.
const Snapshot = `(op) => {
	const reg = globalThis[` + Refs + `] || (globalThis[` + Refs + `] = {n: op.base, refs: new Map(), of: new WeakMap(), prune: 1024});
	const refOf = (el) => {
		let r = reg.of.get(el);
		if (!r) {
			r = "e" + (++reg.n);
			reg.of.set(el, r);
			reg.refs.set(r, new WeakRef(el));
		}
		return r;
	};
	const SEL = 'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,h1,h2,h3,h4,h5,h6,' +
		'img[alt]:not([alt=""]),[role],[contenteditable]:not([contenteditable=false]),[onclick],[tabindex]:not([tabindex^="-"]),' +
		':is(nav,main,aside,header,footer,form,section):is([aria-label],[aria-labelledby])';
	const NONE = {none: 1, presentation: 1, generic: 1};
	let cands;
	if (op.selector) {
		let roots;
		try { roots = document.querySelectorAll(op.selector); } catch (e) { return {badSelector: String(e.message)}; }
		if (!roots.length) return {noMatch: true};
		cands = [];
		let last = null;
		for (const r of roots) {
			if (last && last.contains(r)) continue;
			last = r;
			if (r.matches(SEL)) cands.push(r);
			for (const el of r.querySelectorAll(SEL)) cands.push(el);
		}
	} else {
		cands = document.querySelectorAll(SEL);
	}
	const INPUT = {button: "button", submit: "button", reset: "button", image: "button", file: "button",
		checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox"};
	const LANDMARK = {nav: "navigation", main: "main", aside: "complementary", header: "banner",
		footer: "contentinfo", form: "form", section: "region"};
	const implicit = (el) => {
		const tag = el.localName;
		switch (tag) {
		case "a": case "area": return el.hasAttribute("href") ? "link" : "";
		case "button": case "summary": return "button";
		case "input": return INPUT[el.type] || "textbox";
		case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
		case "textarea": return "textbox";
		case "img": return el.alt ? "img" : "";
		case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
		}
		if (LANDMARK[tag] && (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby"))) return LANDMARK[tag];
		if (el.isContentEditable) return "textbox";
		return "";
	};
	const roleOf = (el) => {
		const r = (el.getAttribute("role") || "").trim().split(/\s+/)[0].toLowerCase();
		if (r && !NONE[r]) return r.slice(0, 40);
		const i = implicit(el);
		if (i) return i;
		if (el.hasAttribute("onclick") || el.tabIndex >= 0 && el.hasAttribute("tabindex")) return el.localName;
		return "";
	};
	const clip = (s, n) => {
		s = s.replace(/\s+/g, " ").trim();
		if (s.length <= n) return s;
		let k = n - 1;
		const c = s.charCodeAt(k - 1);
		if (c >= 0xd800 && c <= 0xdbff) k--;
		return s.slice(0, k) + "\u2026";
	};
	const NAME = 100;
	// text is el's text, images' alt included, as far as a name needs it,
	// leaving out what lies in skip (a control inside its label) and in
	// scripts.
	const text = (el, skip) => {
		const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
		let s = "";
		for (let t = w.nextNode(); t && s.length < 4 * NAME; t = w.nextNode()) {
			if (t.nodeType === 1) {
				if (t.localName === "img" && t.alt) s += " " + t.alt + " ";
				continue;
			}
			const p = t.parentElement;
			if (skip && skip.contains(t) || p && (p.localName === "script" || p.localName === "style")) continue;
			s += t.data;
		}
		return s;
	};
	const FROM_CONTENT = {link: 1, button: 1, heading: 1, checkbox: 1, radio: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1,
		menuitemradio: 1, option: 1, switch: 1, treeitem: 1, cell: 1, gridcell: 1, columnheader: 1, rowheader: 1, tooltip: 1};
	const nameOf = (el, role) => {
		const ids = el.getAttribute("aria-labelledby");
		if (ids) {
			const root = el.getRootNode();
			const s = ids.split(/\s+/).map(id => { const l = root.getElementById ? root.getElementById(id) : null; return l ? text(l) : ""; }).join(" ");
			if (s.trim()) return clip(s, NAME);
		}
		const aria = el.getAttribute("aria-label");
		if (aria && aria.trim()) return clip(aria, NAME);
		if (el.labels && el.labels.length) {
			const s = Array.from(el.labels, l => text(l, el)).join(" ");
			if (s.trim()) return clip(s, NAME);
		}
		if (el.localName === "img" || el.localName === "input" && el.type === "image") {
			if (el.alt) return clip(el.alt, NAME);
		}
		if (el.localName === "input" && (el.type === "submit" || el.type === "reset" || el.type === "button")) {
			return clip(el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : ""), NAME);
		}
		if (FROM_CONTENT[role] || role === el.localName) {
			const s = clip(text(el), NAME);
			if (s) return s;
		}
		if (el.title) return clip(el.title, NAME);
		if (el.placeholder) return clip(el.placeholder, NAME);
		return "";
	};
	const VALUE = 100;
	const valueOf = (el) => {
		switch (el.localName) {
		case "input":
			if (el.type === "password") return "";
			return INPUT[el.type] && el.type !== "range" && el.type !== "number" ? "" : clip(el.value, VALUE);
		case "textarea": return clip(el.value, VALUE);
		case "select": return clip(Array.from(el.selectedOptions, o => o.label).join(", "), VALUE);
		}
		return el.isContentEditable ? clip(text(el), VALUE) : "";
	};
	let active = document.activeElement;
	while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
	const vw = innerWidth, vh = innerHeight;
	const flagsOf = (el, r, role) => {
		let f = 0;
		if (el.matches(":disabled") || el.getAttribute("aria-disabled") === "true") f |= 1;
		let c = "";
		if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) {
			c = el.indeterminate ? "mixed" : String(el.checked);
		} else if (el.hasAttribute("aria-checked")) {
			c = el.getAttribute("aria-checked");
		}
		f |= c === "true" ? 2 : c === "false" ? 4 : c === "mixed" ? 8 : 0;
		let x = el.getAttribute("aria-expanded");
		if (x === null && el.localName === "summary" && el.parentElement && el.parentElement.localName === "details") {
			x = String(el.parentElement.open);
		}
		f |= x === "true" ? 16 : x === "false" ? 32 : 0;
		if (el === active) f |= 64;
		if (r.bottom <= 0 || r.right <= 0 || r.top >= vh || r.left >= vw) f |= 128;
		return f;
	};
	// u8 is the UTF-8 length of s.
	const u8 = (s) => {
		let n = s.length;
		for (let i = 0; i < s.length; i++) {
			const c = s.charCodeAt(i);
			if (c >= 0x80) n += c < 0x800 || c >= 0xd800 && c <= 0xdfff ? 1 : 2;
		}
		return n;
	};
	const FLAGS = [" [disabled]", " [checked]", " [checked=false]", " [checked=mixed]", " [expanded]", " [expanded=false]", " [focused]", " [offscreen]"];
	const lineBytes = (e) => {
		let n = op.prefix.length + u8(e.r) + 1 + u8(e.o) + 1;
		if (e.n) n += u8(e.n) + 3;
		if (e.v) n += u8(e.v) + 9;
		for (let i = 0; i < FLAGS.length; i++) if (e.f & (1 << i)) n += FLAGS[i].length;
		return n;
	};
	const opts = {visibilityProperty: true, checkVisibilityCSS: true};
	let total = 0, bytes = 0, cut = "";
	const els = [];
	for (const el of cands) {
		const role = roleOf(el);
		if (!role || !el.checkVisibility(opts)) continue;
		total++;
		if (total <= op.offset || cut) continue;
		if (els.length >= op.max) { cut = "count"; continue; }
		const r = el.getBoundingClientRect();
		const e = {r: refOf(el), o: role, n: nameOf(el, role), v: valueOf(el), f: flagsOf(el, r, role),
			x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height)};
		const b = lineBytes(e);
		if (bytes + b > op.maxBytes && (els.length || !op.first)) { cut = "bytes"; continue; }
		bytes += b;
		els.push(e);
	}
	if (reg.refs.size > reg.prune) {
		for (const [k, w] of reg.refs) if (!w.deref()) reg.refs.delete(k);
		reg.prune = Math.max(1024, 2 * reg.refs.size);
	}
	return {total, n: reg.n, cut, els};
}`
