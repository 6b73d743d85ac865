package faultrows

// EvaluateRow is a script for a chromedp backend's Evaluate, as a program
// of chromedp's writes it, on a page whose title is "ok" and whose first
// paragraph reads "héllo", and what it answers.
type EvaluateRow struct {
	Name, JS string
	Args     []any
	Want     any
}

// EvaluateRows are the scripts Evaluate takes: an expression, as
// chromedp.Evaluate takes it, and a function definition called with args.
var EvaluateRows = []EvaluateRow{
	{"expression", `document.title`, nil, "ok"},
	{"comparison", `document.readyState === "complete"`, nil, true},
	{"expression and semicolon", "document.title;\n", nil, "ok"},
	{"expression and line comment", `document.title // the title`, nil, "ok"},
	{"promise", `new Promise(r => setTimeout(() => r(7), 10))`, nil, 7.0},
	{"await", `await new Promise(r => setTimeout(() => r(8), 10)) + 1`, nil, 9.0},
	{"called arrow", `(() => 6 * 7)()`, nil, 42.0},
	{"function", `function () { return document.title }`, nil, "ok"},
	{"function with args", `function (a, b) { return a * b }`, []any{6, 7}, 42.0},
	{"arrow", `() => document.querySelector("p").textContent`, nil, "héllo"},
	{"arrow with args", `(a, b) => a + b`, []any{40, 2}, 42.0},
	{"async arrow with args", `async (sel) => document.querySelector(sel).textContent`, []any{"p"}, "héllo"},
}
