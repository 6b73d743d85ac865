package engine

import (
	"bytes"
	"strconv"
	"strings"
)

// Chrome awaits an eval's result when asked (awaitPromise), and charges
// for it even when the result is no promise: it wraps every result in a
// resolved promise and answers from a microtask, 1.5-3% of a healthy eval
// (measured on Chromium 156). So a backend's eval asks for no await, and
// its expression hands back a marker when the result is a promise (any
// thenable, as await takes one): the promise waits in the page, and a
// second call, with the expression Pending gives, awaits it. A driver
// returns tabstate.ErrNavigated when Gone says the page lost it. An eval
// that returns no promise costs one call and no await; one that does costs
// a second call.
//
// Chrome parses an eval's expression on every call, so the wrapper is
// short and creates no function on the way of a result that is no
// promise: a block whose completion value is the result, where a wrapping
// arrow function and a readable layout cost 2.5% more of a healthy eval
// (measured on Chromium 156).

// pendingKey names the marker's one field, and the page's store of
// pending promises.
const pendingKey = "__tabguardPending"

// pendingBound is how many promises a page keeps for Pending; a newer one
// pushes the oldest out (its eval was cut short, and nobody settles it).
const pendingBound = "64"

// pick is the expression that answers the result, in the constant
// _tabguard, or keeps it and answers the marker when it is a thenable,
// for the expression Pending gives. The name is one a page's own script
// would not use: the eval's function sees it.
const pick = `_tabguard===null||typeof _tabguard!="object"&&typeof _tabguard!="function"||typeof _tabguard.then!="function"?_tabguard:` +
	`(s=>(s.m.set(++s.n,_tabguard).size>` + pendingBound + `&&s.m.delete(s.m.keys().next().value),{` + pendingKey + `:s.n}))` +
	`(globalThis[Symbol.for("` + pendingKey + `")]??={n:0,m:new Map})`

// AwaitedCall is the script, for Runtime.evaluate, that calls the
// function fn with args (each JSON) and answers its result, or the marker
// of a pending promise.
func AwaitedCall(fn string, args []string) string {
	var b strings.Builder
	n := len(fn) + len(pick) + 24
	for _, a := range args {
		n += len(a) + 1
	}
	b.Grow(n)
	b.WriteString("{const _tabguard=(")
	b.WriteString(fn)
	b.WriteString(")(")
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a)
	}
	b.WriteString(");")
	b.WriteString(pick)
	b.WriteByte('}')
	return b.String()
}

// AwaitedFunction is the function declaration, for Runtime.callFunctionOn,
// that applies fn to its arguments and answers as AwaitedCall does.
func AwaitedFunction(fn string) string {
	return "function(..._tabguardArgs){const _tabguard=(" + fn + ").apply(globalThis,_tabguardArgs);return " + pick + "}"
}

// Pending reads a result value (JSON) and, when it is the marker of a
// pending promise, returns the expression that awaits it: evaluate it with
// awaitPromise and returnByValue for the promise's value. A promise the
// page no longer holds (it navigated) answers ErrNavigated's marker, which
// Gone reads.
func Pending(value []byte) (settle string, ok bool) {
	const prefix = `{"` + pendingKey + `":`
	if !bytes.HasPrefix(value, []byte(prefix)) || !bytes.HasSuffix(value, []byte("}")) {
		return "", false
	}
	id := value[len(prefix) : len(value)-1]
	if _, err := strconv.ParseUint(string(id), 10, 32); err != nil {
		return "", false
	}
	return `(s => { const p = s && s.m.get(` + string(id) + `); if (!p) return {` + pendingKey + `: "gone"}; s.m.delete(` + string(id) +
		`); return p; })(globalThis[Symbol.for("` + pendingKey + `")])`, true
}

// Gone reports whether a settled value says the page no longer held the
// promise: the document it was made in is gone.
func Gone(value []byte) bool {
	return bytes.Equal(value, []byte(`{"`+pendingKey+`":"gone"}`))
}
