// Package faultrows is the fault matrix both backends run: every way a tab
// can wedge an eval that tabguard knows of, what the watcher must answer
// for it, and, named in each row, where the rod backend (package tabguard)
// and the chromedp backend (package chromedpguard) differ.
//
// It imports neither rod nor chromedp, and only tests import it: each
// backend's TestFaultMatrix walks [Rows], brings each fault about and
// recovers from it with its own calls, keyed by the row's name, and holds
// what it got to the row with [Check]. [Missing] says which rows a backend
// neither implements nor declines, so no row is silently left out.
package faultrows

import (
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// DefaultTimeout is the EvalTimeout of a row that names none. The matrix
// asserts no time (the machine is shared): a refusal must be a
// [tabstate.BlockedError], which the state machine gives without waiting,
// and a timeout must name its own limit.
const DefaultTimeout = 2 * time.Second

// Backend is one of the two backends a row runs on.
type Backend uint8

const (
	// Rod is package tabguard, on go-rod/rod.
	Rod Backend = iota
	// Chromedp is package chromedpguard, on chromedp/chromedp.
	Chromedp
)

// String names the backend as its tests and docs/failures.md do.
func (b Backend) String() string {
	if b == Chromedp {
		return "chromedp"
	}
	return "rod"
}

// Browser says which browser a row's tab lives in.
type Browser uint8

const (
	// Shared is the browser the package's tests share.
	Shared Browser = iota
	// Dedicated is a browser of the row's own: for a fault that would take
	// the browser's other tabs with it, or that another test's new tab
	// would change (a newer tab hides this one).
	Dedicated
	// Discardable is a browser of the row's own with chrome://discards on
	// (see [DiscardLocalState]).
	Discardable
)

// Diff is how one backend differs on a row.
type Diff struct {
	// Skip, when set, is why the row does not run on the backend.
	Skip string
	// Dedicated runs the row in a browser of its own on the backend,
	// where the row's Browser is Shared.
	Dedicated bool
	// Msg are substrings of the error (or result) that only this
	// backend's message holds: the calls it names.
	Msg []string
	// Note names any other difference, such as a recovery made with
	// other calls; the backend's table in docs/failures.md says it.
	Note string
}

// Row is one way a tab can wedge an eval, and what every backend's watcher
// must answer for it.
type Row struct {
	// Name is the subtest's name and the first column of the failure
	// tables in docs/failures.md.
	Name string
	// EvalTimeout is the watcher's Options.EvalTimeout; zero is
	// DefaultTimeout.
	EvalTimeout time.Duration
	// TerminateOnTimeout is the watcher's Options.TerminateOnTimeout.
	TerminateOnTimeout bool
	// Path is the page loaded before the fault: "" is "/", "-" is a blank tab.
	Path string
	// WatchFirst watches the tab before Path loads, so the watcher knows
	// the page's iframes from their events (one learned after the load is
	// known by Page.getFrameTree, which names no load error).
	WatchFirst bool
	// Browser is the browser the tab lives in.
	Browser Browser
	// AlsoHeaded runs the row on a headed browser too, as a twin row
	// named with HeadedSuffix (see [Headed]): for a prompt headed Chrome
	// draws, where the answer must be the same.
	AlsoHeaded bool
	// Want is the sentinel the answer matches, nil for a result.
	Want error
	// Msg are substrings of the error, or of the result as a string, that
	// every backend's answer holds.
	Msg []string
	// Cause is, for a timeout, what the watcher must find the tab doing.
	Cause tabstate.TimeoutCause
	// Fast says the tab's state answers, never the eval's deadline.
	Fast bool
	// Rod and Chromedp are how each backend differs.
	Rod, Chromedp Diff
}

// Timeout is the row's EvalTimeout, with DefaultTimeout for zero.
func (r Row) Timeout() time.Duration {
	if r.EvalTimeout == 0 {
		return DefaultTimeout
	}
	return r.EvalTimeout
}

// Diff is how backend b differs on the row.
func (r Row) Diff(b Backend) Diff {
	if b == Chromedp {
		return r.Chromedp
	}
	return r.Rod
}

// BrowserOn is the browser the row's tab lives in on backend b.
func (r Row) BrowserOn(b Backend) Browser {
	if r.Diff(b).Dedicated {
		switch r.Browser {
		case Shared:
			return Dedicated
		case Headed:
			return HeadedOwn
		}
	}
	return r.Browser
}

// Messages are the substrings b's answer must hold: the shared ones, then
// b's own.
func (r Row) Messages(b Backend) []string {
	return append(append([]string(nil), r.Msg...), r.Diff(b).Msg...)
}

// Rows is the fault matrix, in the order of the tables in docs/failures.md.
func Rows() []Row { return slices.Concat(kinds()...) }

// kinds are the matrix's rows by kind of fault, in the order of the
// tables in docs/failures.md.
func kinds() [][]Row {
	return [][]Row{
		crashRows(), scriptRows(), dialogRows(), {debuggerRow()}, loadRows(),
		withHeaded(promptRows()), lifecycleRows(), navPendingRows(), silentRows(), helperRows(),
		goneRows(), frameRows(),
	}
}

// Smoke is the part of the matrix a backend whose rows the other backend
// also runs holds to on every run of make test: the first row of each kind
// of fault, the first headed row, and every row where b answers or
// recovers in its own way (a Diff with messages or a note). The engine
// gives every other row the same answer on both backends; the whole matrix
// runs when Full.
func Smoke(b Backend) []Row {
	var out []Row
	headed := false
	for _, kind := range kinds() {
		for i, r := range kind {
			d := r.Diff(b)
			first := i == 0 || r.Browser.IsHeaded() && !headed
			if first || len(d.Msg) > 0 || d.Note != "" {
				out = append(out, r)
				headed = headed || r.Browser.IsHeaded()
			}
		}
	}
	return out
}

// Full reports whether the tests run in full, as make test-more runs
// them, with TABGUARD_TEST_ALL set: every row on every backend, and every
// prompt row PromptCycles times.
func Full() bool { return os.Getenv("TABGUARD_TEST_ALL") != "" }

// EngineRow skips t unless Full: t repeats, on a chromedp backend, a row
// whose answer is the engine's, with nothing of the adapter's that the
// backend's other rows do not use, and whose browser row the root
// package runs on every run of make test.
func EngineRow(t testing.TB) {
	t.Helper()
	if !Full() {
		t.Skip("the engine's answer, held on rod's browser row: make test-more runs it here too")
	}
}

// SlowRow skips t unless Full: t is a browser row that costs make test
// much of its time, of a rule that the engine's own tests hold without a
// browser on every run (why names that test). make test-more runs it.
func SlowRow(t testing.TB, why string) {
	t.Helper()
	if !Full() {
		t.Skip("a slow browser row of a rule " + why + " holds without a browser: make test-more runs it")
	}
}

// Matrix is the rows backend b's TestFaultMatrix runs: the whole matrix
// on rod, and on chromedp when Full; Smoke otherwise.
func Matrix(b Backend) []Row {
	if b == Rod || Full() {
		return Rows()
	}
	return Smoke(b)
}

// Missing names the rows that backend b neither implements (impl holds b's
// fault funcs by the name of the row's fault, Row.Fault) nor declines with a Diff.Skip, the names in
// impl that are no row's, and the rows b implements although it declines
// them.
func Missing[F any](b Backend, impl map[string]F) []string {
	var out []string
	known := map[string]bool{}
	for _, r := range Rows() {
		known[r.Fault()] = true
		_, ok := impl[r.Fault()]
		switch skip := r.Diff(b).Skip; {
		case !ok && skip == "":
			out = append(out, r.Name+": no "+b.String()+" implementation, and not marked as not run on "+b.String())
		case ok && skip != "":
			out = append(out, r.Name+": implemented on "+b.String()+", but marked as not run there: "+skip)
		}
	}
	var extra []string
	for name := range impl {
		if !known[name] {
			extra = append(extra, name+": a "+b.String()+" implementation with no shared row")
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}
