package pagejs

// Refs is the key of the global under which a document keeps its refs:
// the registry Snapshot fills and FindRef reads. It holds n, the last
// number given, refs, a Map from a ref to a WeakRef of its element, and
// of, a WeakMap from an element to its ref, so an element keeps its ref
// across snapshots of the same document.
const Refs = `Symbol.for("tabguard.refs")`

// FindRef is the function that finds the element a snapshot named ref
// (the ref within its frame, as "e12") in this document: {el} when it is
// there, {gone: true} when this document gave no such ref (it came from an
// earlier document of the frame), {replaced: true} when the element it
// named is no longer in the document (the page re-rendered it).
const FindRef = `(ref) => {
	const reg = globalThis[` + Refs + `];
	const w = reg && reg.refs.get(ref);
	if (!w) return {gone: true};
	const el = w.deref();
	return el && el.isConnected ? {el} : {replaced: true};
}`
