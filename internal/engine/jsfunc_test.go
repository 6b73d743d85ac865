package engine_test

import (
	"errors"
	"testing"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
)

func TestIsFunction(t *testing.T) {
	tests := []struct {
		js   string
		want bool
	}{
		{`function () { return 1 }`, true},
		{`function(a, b) { return a + b }`, true},
		{`function named(a) { return a }`, true},
		{`function* gen() {}`, true},
		{`async function () { return 1 }`, true},
		{`async function named() {}`, true},
		{`() => document.title`, true},
		{`(a, b) => a + b`, true},
		{`a => a * 2`, true},
		{`$el => $el.textContent`, true},
		{`é => é`, true},
		{`async () => 1`, true},
		{`async (a) => a`, true},
		{`async a => a`, true},
		{`async => async`, true},
		{`({a}, [b], ...rest) => a + b`, true},
		{`(a = f(")")) => a`, true},
		{"(a = `)`) => a", true},
		{`(a /* ) */, b) => a`, true},
		{"  \n\t() => 1", true},
		{"// the title\n() => document.title", true},
		{"/* a comment */ (a) => a", true},

		{`document.title`, false},
		{`document.readyState === "complete"`, false},
		{`1 + 2`, false},
		{`(1 + 2) * 3`, false},
		{`(() => 1)()`, false},
		{`[1, 2].map(x => x * 2)`, false},
		{`new Promise(r => setTimeout(r, 10))`, false},
		{`x >= 1`, false},
		{`x = () => 1`, false},
		{`functionName`, false},
		{`window.check`, false},
		{`document.title + "=>"`, false},
		{`async(1)`, false},
		{`async`, false},
		{`await fetch("/").then(r => r.status)`, false},
		{`"() => 1"`, false},
		{`(a, b`, false},
		{`// only a comment`, false},
		{`/* open`, false},
		{``, false},
	}
	for _, tt := range tests {
		if got := engine.IsFunction(tt.js); got != tt.want {
			t.Errorf("IsFunction(%q) = %v; want %v", tt.js, got, tt.want)
		}
	}
}

func TestEvaluateFunction(t *testing.T) {
	tests := []struct {
		name  string
		js    string
		nargs int
		want  string
	}{
		{"function", `(a, b) => a + b`, 2, `(a, b) => a + b`},
		{"function trimmed", " () => 1;\n", 0, `() => 1`},
		{"expression", `document.title`, 0, "function() { return (\ndocument.title\n) }"},
		{"expression trimmed", "document.title;\n", 0, "function() { return (\ndocument.title\n) }"},
		{"line comment", `document.title // the title`, 0, "function() { return (\ndocument.title // the title\n) }"},
		{"await", `await Promise.resolve(1)`, 0, "async function() { return (\nawait Promise.resolve(1)\n) }"},
		{"await in a call", `f(await g())`, 0, "async function() { return (\nf(await g())\n) }"},
		{"awaited is no await", `awaited + 1`, 0, "function() { return (\nawaited + 1\n) }"},
		{"xawait is no await", `o.xawait`, 0, "function() { return (\no.xawait\n) }"},
		{"empty", " ; ", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := engine.EvaluateFunction(tt.js, tt.nargs)
			if err != nil || got != tt.want {
				t.Errorf("EvaluateFunction(%q, %d) = %q, %v; want %q, nil", tt.js, tt.nargs, got, err, tt.want)
			}
		})
	}

	_, err := engine.EvaluateFunction(`document.title`, 1)
	if !errors.Is(err, tabstate.ErrInvalidArgument) {
		t.Errorf("EvaluateFunction(expression, 1 arg) = %v; want ErrInvalidArgument", err)
	}
}
