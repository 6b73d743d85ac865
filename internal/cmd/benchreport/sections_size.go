package main

import "fmt"

// sizeNote says what the chromedp binary's growth holds: the guard's
// machine code and what grows with it, why a program that only evaluates
// links all of it, and why log/slog comes along.
func sizeNote(res *results) string {
	growth, ok1 := res.get(chromedpSize, "growth-bytes")
	code, ok2 := res.get(chromedpSize, "code-growth-bytes")
	slog, ok3 := res.get(chromedpSize, "slog-code-bytes")
	if !ok1 || !ok2 || !ok3 || growth <= 0 {
		return ""
	}
	return fmt.Sprintf("Machine code is %.0f%% of the growth, and the rest grows with it: each function's "+
		"entry in the function table (`.gopclntab`: its name, its stack and line tables), the type descriptors "+
		"of the events and of the CDP params, the words of the errors and, in the default build, the DWARF. "+
		"That code is the guard's behaviour, not a dependency's: `Watch` starts the engine's handling of every "+
		"event a tab sends and of every Option, since which Options a program sets and which events Chrome "+
		"sends are known only when it runs. So a program that only evaluates links the frames' state machine, "+
		"dialogs, downloads, sign-ins, certificate errors, permissions, file choosers, the console, the probes "+
		"that prove a timeout's cause and the resumption of a dropped connection. The linker leaves out what a "+
		"program never calls: the Watcher methods it does not use, and with them the page scripts of DOM, "+
		"Snapshot and Act. A feature whose events the engine handles is thus paid for by every program, and "+
		"a new Watcher method only by the programs that call it. log/slog (%.0f bytes of the machine code, and "+
		"its share of the rest) comes with `Options.Logger`: the engine's calls on a `*slog.Logger` link slog's "+
		"default handler, its text and JSON encoding included, whether or not the program sets a Logger; a "+
		"program that logs with slog has it already.", 100*code/growth, slog)
}
