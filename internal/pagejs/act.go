package pagejs

// actCommon finds an action's element and names elements as their opening
// tags show them. find answers {el} or {none: why, retry}; describe gives
// `<button id="t" class="primary">`, its attributes capped.
const actCommon = `
	const S = Symbol.for("tabguard.act");
	const describe = (el) => {
		if (!el || el.nodeType !== 1) return el === document ? "the document" : "nothing";
		let s = "<" + el.localName;
		for (const a of ["id", "class", "name", "type", "role", "aria-label", "href"]) {
			let v = el.getAttribute(a);
			if (v === null) continue;
			v = v.trim().replace(/\s+/g, " ");
			if (v.length > 40) v = v.slice(0, 37) + "...";
			s += " " + a + '="' + v.replace(/"/g, "&quot;") + '"';
		}
		return s + ">";
	};
	const find = (op) => {
		if (op.ref) {
			const r = findRef(op.ref);
			if (r.gone) return {none: "gone"};
			if (r.replaced) return {none: "replaced"};
			return {el: r.el};
		}
		let el;
		try { el = document.querySelector(op.selector); } catch (e) { return {none: "badSelector", detail: String(e.message)}; }
		if (!el) return {none: "noMatch", retry: true};
		return {el};
	};
	const deep = (root) => {
		let a = root.activeElement;
		while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
		return a;
	};
	const hitAt = (x, y) => {
		let hit = document.elementFromPoint(x, y);
		while (hit && hit.shadowRoot) {
			const inner = hit.shadowRoot.elementFromPoint(x, y);
			if (!inner || inner === hit) break;
			hit = inner;
		}
		return hit;
	};
	const within = (el, node) => {
		for (let n = node; n; n = n.parentNode || n.host) if (n === el) return true;
		return false;
	};
	const editable = (el) => {
		if (el.isContentEditable) return "";
		const tag = el.localName;
		if (tag === "textarea") return el.readOnly ? "read-only" : "";
		if (tag !== "input") return "not editable (a <" + tag + ">, not a text field)";
		const types = ["", "text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "time", "week"];
		if (!types.includes((el.getAttribute("type") || "").toLowerCase())) return "not editable (an <input type=\"" + el.type + "\">)";
		return el.readOnly ? "read-only" : "";
	};
	const hiddenBy = (el) => {
		for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
			const st = getComputedStyle(n);
			if (st.display === "none") return "hidden by display: none" + (n === el ? "" : " on " + describe(n));
			if (st.visibility === "hidden" || st.visibility === "collapse") return "hidden by visibility: " + st.visibility;
			if (st.contentVisibility === "hidden") return "hidden by content-visibility: hidden" + (n === el ? "" : " on " + describe(n));
		}
		return "not rendered";
	};
	const animated = (el) => {
		for (const a of document.getAnimations()) {
			const t = a.effect && a.effect.target;
			if (a.playState === "running" && t && within(t, el)) return true;
		}
		return false;
	};
	// A hidden page runs no animation frames: a frame's time stands in.
	const frame = () => new Promise(done => document.visibilityState === "visible" ? requestAnimationFrame(() => done()) : setTimeout(done, 17));
`

// Act checks that an action's element can take it as a user would, and,
// when it can, readies it: it scrolls the element into view, focuses it
// for typing, and arms a capture-phase listener on the window that lets
// through only the input that reaches the element or one inside it. Input
// that reaches another element is stopped there (preventDefault and
// stopImmediatePropagation), so a press that lands on a banner does
// nothing, and is noted for ActRead. The Navigation API's navigate event
// notes a navigation or a download the input starts. The answer is
// {ok, x, y, el} with the point to press in the frame's viewport, or
// {reason, retry, el}. Select acts here, as a user choosing the options
// would, and answers the value.
const Act = `(op) => {` + findRefDecl + actCommon + `
	const old = globalThis[S];
	if (old && old.disarm) old.disarm();
	const f = find(op);
	if (f.none) return {none: f.none, detail: f.detail || "", retry: !!f.retry};
	const el = f.el, desc = describe(el);
	if (!el.isConnected) return {none: "replaced"};
	const refuse = (reason, retry) => ({reason, retry: retry !== false, el: desc});
	if (!el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: false})) return refuse(hiddenBy(el));
	const kind = op.kind;
	if (kind !== "scroll" && kind !== "hover" && (el.matches(":disabled") || el.getAttribute("aria-disabled") === "true")) return refuse("disabled");
	if (kind === "fill") {
		const why = editable(el);
		if (why) return refuse(why, why === "read-only");
	}
	if (kind === "select" && el.localName !== "select") return refuse("not a <select>", false);
	let r = el.getBoundingClientRect();
	if (r.width === 0 || r.height === 0) return refuse("of no size (" + r.width + "x" + r.height + ")");
	const inView = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
	if (kind === "scroll" || !inView(r)) {
		el.scrollIntoView({block: kind === "scroll" ? "center" : "nearest", inline: "nearest", behavior: "instant"});
		r = el.getBoundingClientRect();
	}
	const x = r.left + r.width / 2, y = r.top + r.height / 2;
	if (kind === "scroll") return {ok: true, x: 0, y: 0, el: desc};
	if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
		return refuse("outside the viewport at (" + Math.round(x) + "," + Math.round(y) + ") after scrolling, in a " + innerWidth + "x" + innerHeight + " viewport");
	}
	if (kind === "select") {
		const opts = [...el.options], picked = [];
		for (const v of op.values) {
			const o = opts.find(o => o.value === v) || opts.find(o => o.label.trim() === v || o.text.trim() === v);
			if (!o) return refuse("has no option " + JSON.stringify(v) + " (its options: " + opts.slice(0, 10).map(o => JSON.stringify(o.value)).join(", ") + (opts.length > 10 ? ", ..." : "") + ")", false);
			if (o.disabled) return refuse("option " + JSON.stringify(v) + " is disabled");
			picked.push(o);
		}
		if (!el.multiple && picked.length > 1) return refuse("takes one option, not " + picked.length, false);
		for (const o of opts) o.selected = picked.includes(o);
		el.dispatchEvent(new Event("input", {bubbles: true, composed: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return {ok: true, x: 0, y: 0, el: desc, value: el.multiple ? picked.map(o => o.value).join(",") : el.value};
	}
	const check = () => {
		if (kind === "fill" || kind === "press") {
			el.focus({preventScroll: true});
			let a = deep(document);
			if (!a || !within(el, a) && !(a.isContentEditable && within(a, el))) return "cannot take the focus: " + describe(a) + " keeps it";
			if (kind === "fill") {
				if (el.isContentEditable) {
					const range = document.createRange();
					range.selectNodeContents(el);
					const sel = getSelection();
					sel.removeAllRanges();
					sel.addRange(range);
				} else {
					el.select();
				}
			}
			return "";
		}
		const hit = hitAt(x, y);
		if (!hit) return "covered: nothing is at its centre (" + Math.round(x) + "," + Math.round(y) + ")";
		if (!within(el, hit)) return "covered by " + describe(hit) + " at (" + Math.round(x) + "," + Math.round(y) + ")";
		return "";
	};
	const arm = () => {
		const types = kind === "fill" ? [] : kind === "press" ? ["keydown"] : kind === "hover" ? ["mouseover", "mousemove"]
			: ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "auxclick", "contextmenu"];
		const state = {received: "", blocked: "", navigate: null};
		const hear = (e) => {
			const t = e.composedPath()[0];
			if (within(el, t)) {
				if (!state.received) state.received = describe(t);
				return;
			}
			if (kind === "hover" || kind === "press") { if (!state.blocked) state.blocked = describe(t); return; }
			if (!state.blocked) state.blocked = describe(t);
			e.preventDefault();
			e.stopImmediatePropagation();
		};
		const nav = (e) => {
			if (!state.navigate) state.navigate = {url: e.destination.url, download: e.downloadRequest !== null, same: e.destination.sameDocument};
		};
		for (const t of types) addEventListener(t, hear, true);
		if (globalThis.navigation) navigation.addEventListener("navigate", nav);
		state.disarm = () => {
			for (const t of types) removeEventListener(t, hear, true);
			if (globalThis.navigation) navigation.removeEventListener("navigate", nav);
			if (globalThis[S] === state) delete globalThis[S];
		};
		state.el = el;
		globalThis[S] = state;
	};
	const done = () => { arm(); return {ok: true, x, y, el: desc}; };
	if (!animated(el)) {
		const why = check();
		return why ? refuse(why) : done();
	}
	return frame().then(frame).then(() => {
		const r2 = el.getBoundingClientRect();
		if (r2.left !== r.left || r2.top !== r.top || r2.width !== r.width || r2.height !== r.height) {
			return refuse("moving (at (" + Math.round(r.left) + "," + Math.round(r.top) + "), then (" + Math.round(r2.left) + "," + Math.round(r2.top) + ") two frames later)");
		}
		const why = check();
		return why ? refuse(why) : done();
	});
}`

// ActRead answers what the listener Act armed heard, and disarms it:
// {received, blocked, navigate, value, armed}. armed is false when no
// listener was there: the document it was armed in is gone.
const ActRead = `() => {
	const S = Symbol.for("tabguard.act"), s = globalThis[S];
	if (!s) return {armed: false};
	s.disarm();
	const el = s.el;
	const value = el.isContentEditable ? el.innerText : (el.value === undefined ? "" : String(el.value));
	return {armed: true, received: s.received, blocked: s.blocked, navigate: s.navigate, value};
}`

// ActCount counts the elements a selector matches in a frame, for an
// action whose selector matched nothing in the frame it was asked in.
const ActCount = `(sel) => { try { return document.querySelectorAll(sel).length; } catch (e) { return 0; } }`

// findRefDecl declares FindRef inside the action's script.
const findRefDecl = "\n\tconst findRef = " + FindRef + ";\n"
