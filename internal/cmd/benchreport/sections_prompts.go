package main

const signInLoad = "BenchmarkSignInLoad"

// promptSections are the claims about prompts: what answering sign-ins
// costs the loads that need none.
var promptSections = []section{{
	title: "Loads with Options.Credentials set",
	how: "With `Options.Credentials` set, Chrome holds each document request of a watched tab (the Fetch domain, " +
		"documents only) until the engine continues it, so that a sign-in can be answered. Two tabs of one browser " +
		"navigate to the same small page from an `httptest` server, one watched with `Credentials` set and one " +
		"without; each iteration makes one `Watcher.Navigate` of each, in alternating order, timed to its return " +
		"(the commit). Then one `Navigate` to a page that asks for credentials, given by the callback, is timed in " +
		"a fresh tab, and one to the same page once the browser has them (it sends them unasked).",
	rows: []row{
		{"loads of each", signInLoad, "loads-each", "%.0f"},
		{"Navigate without Credentials, median", signInLoad, "plain-p50-ms", "%.2f ms"},
		{"Navigate with Credentials, median", signInLoad, "held-p50-ms", "%.2f ms"},
		{"median ratio (with / without)", signInLoad, "p50-ratio", "%.3f"},
		{"p95 ratio (with / without)", signInLoad, "p95-ratio", "%.3f"},
		{"Navigate to a sign-in the callback answers, once", signInLoad, "signin-ms", "%.2f ms"},
		{"Navigate to the same page with the browser's credentials, once", signInLoad, "signin-cached-ms", "%.2f ms"},
	},
	goals: []goal{
		{"sign-in: a load with Options.Credentials set at most 1.3x one without, median", signInLoad, "p50-ratio", "%.3f", true, 1.3},
	},
}}
