package tabstate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// TimeoutCause is what a watcher found a tab doing when a call on it ran
// out of time: [TimeoutError.Cause].
type TimeoutCause uint8

const (
	// TimeoutUnknown: the watcher did not look, or could not tell: its
	// probes failed, or had too little time before the deadline to prove
	// what did not answer (a short deadline, a slow link, a loaded
	// machine); the error then says what did answer.
	TimeoutUnknown TimeoutCause = iota
	// TimeoutLoading: no document was committed: the tab is still loading.
	TimeoutLoading
	// TimeoutUnsettled: the page answers; only the eval's promise never
	// settled.
	TimeoutUnsettled
	// TimeoutHidden: as TimeoutUnsettled, on a hidden page (a background
	// tab), where requestAnimationFrame does not run.
	TimeoutHidden
	// TimeoutFrozen: as TimeoutUnsettled, on a frozen page, which runs no
	// timers.
	TimeoutFrozen
	// TimeoutBusyScript: JavaScript held the page's main thread.
	TimeoutBusyScript
	// TimeoutHung: the renderer answered nothing, not even an interrupt: a
	// JavaScript dialog that opened before the watcher did holds it, it
	// hangs outside JavaScript, or it died and Chrome has not reported the
	// crash yet (measured: about 5 s late on a Chrome whose output pipe
	// the program closed, as chromedp's default allocator does).
	TimeoutHung
	// TimeoutSilent: nothing answered, not even the browser process: the
	// connection went silent, or the machine is too loaded to answer.
	TimeoutSilent
	// TimeoutNavigating: a main-frame navigation has started and not
	// committed, as to a server that never answers, and Chrome holds the
	// page's calls until it does; the browser process answered, and the
	// tab still shows the page it had.
	TimeoutNavigating
)

// String names the cause, as in "TimeoutBusyScript".
func (c TimeoutCause) String() string {
	switch c {
	case TimeoutUnknown:
		return "TimeoutUnknown"
	case TimeoutLoading:
		return "TimeoutLoading"
	case TimeoutUnsettled:
		return "TimeoutUnsettled"
	case TimeoutHidden:
		return "TimeoutHidden"
	case TimeoutFrozen:
		return "TimeoutFrozen"
	case TimeoutBusyScript:
		return "TimeoutBusyScript"
	case TimeoutHung:
		return "TimeoutHung"
	case TimeoutSilent:
		return "TimeoutSilent"
	case TimeoutNavigating:
		return "TimeoutNavigating"
	}
	return fmt.Sprintf("TimeoutCause(%d)", int(c))
}

// Describe says what a tab at url was doing, for [TimeoutError.Doing]: the
// cause in words, without advice, which is the watcher's to give.
func (c TimeoutCause) Describe(url string) string {
	return c.describe(url, "the eval's promise never settled")
}

// DescribeCall is Describe for a call that op names, as [TimeoutError.Op]
// does: a call that is no eval, such as a DOM read or a program's own
// action waiting for an element, never finished, where an eval's promise
// never settled. An empty op, or "eval", is an eval.
func (c TimeoutCause) DescribeCall(url, op string) string {
	if op == "" || op == "eval" {
		return c.Describe(url)
	}
	return c.describe(url, "the "+op+" never finished")
}

// describe is Describe, with pending saying what did not end on a page
// that answers.
func (c TimeoutCause) describe(url, pending string) string {
	url = ShownURL(url)
	switch c {
	case TimeoutLoading:
		if url == "" {
			return "tab still loading"
		}
		return "tab still loading " + url
	case TimeoutUnsettled:
		return "page " + url + " answers, but " + pending
	case TimeoutHidden:
		return "page " + url + " answers, but " + pending + ": the page is hidden, as a " +
			"background tab is, where requestAnimationFrame does not run"
	case TimeoutFrozen:
		return "page " + url + " answers, but " + pending + ": the page is frozen, so it runs no timers"
	case TimeoutBusyScript:
		return "busy running script on committed page " + url
	case TimeoutHung:
		return "renderer of page " + url + " answers nothing, not even an interrupt: a JavaScript dialog " +
			"opened before the watcher did, or the renderer hangs outside JavaScript, or it died and Chrome has not " +
			"reported the crash yet"
	case TimeoutSilent:
		return "nothing answered, not even the browser process (Browser.getVersion): the connection may have " +
			"gone silent, as behind a proxy that stopped forwarding, or the machine is too loaded to answer"
	case TimeoutNavigating:
		return "navigation to " + url + " has not committed, and Chrome holds the page's calls until it does"
	}
	return "page " + url + " is loaded: a script is busy or a promise never settled"
}

// Probes is what the checks a watcher sends to a committed page shortly
// before a call's deadline found, for [Diagnose]. Each error is nil when
// its check answered and matches [context.DeadlineExceeded] when it did not
// answer by the deadline.
type Probes struct {
	// Evaluate is a Runtime.evaluate of document.visibilityState, which
	// awaits nothing: it answers unless a script holds the main thread or
	// the renderer hangs. Visibility is its answer.
	Evaluate   error
	Visibility string
	// Timer is a Runtime.evaluate that awaits a zero-delay timer: a page
	// frozen by Page.setWebLifecycleState answers evaluates but runs no
	// timers, and Chrome sends no event when it freezes.
	Timer error
	// Interrupt is Performance.getMetrics, which Chrome dispatches as an
	// interrupt: it answers in about a millisecond while a script loops,
	// but not when the renderer hangs outside JavaScript (chrome://hang) or
	// a dialog that opened before the watcher holds the page.
	Interrupt error
	// Browser is Browser.getVersion, which the browser process answers
	// whatever its tabs do.
	Browser error
	// Navigating says a main-frame navigation was under way, started and
	// neither committed nor abandoned, as the tab's events told; its URL is
	// NavigationURL. Chrome holds the page's calls until it commits, while
	// the browser process answers (measured on Chromium 156).
	Navigating    bool
	NavigationURL string
	// Window is how long the probes had to answer: from when they were
	// sent to the call's deadline. Due is how long an answer may take
	// before its absence proves anything: over a distant link, on a loaded
	// machine, or in a window a short deadline cut, a probe that did not
	// answer proves nothing. A cause read from what did not answer
	// (TimeoutFrozen, TimeoutHung, TimeoutSilent) is named only when Window
	// is at least Due; zero for both counts every late probe.
	Window, Due time.Duration
}

// Proven reports whether the probes had the time it takes to prove that
// what did not answer never would: Window is at least Due.
func (p Probes) Proven() bool { return p.Window >= p.Due }

// Diagnose says why a committed page did not answer a call in time, from
// what the probes found (measured on Chromium 156). It returns an error
// when a probe failed otherwise than by its deadline, so the probes cannot
// tell; the cause is then TimeoutUnknown, or TimeoutBusyScript when only
// the interrupt failed so. A cause that rests on a probe that did not
// answer is named only when the probes had the time to prove it
// ([Probes.Proven]); otherwise what did answer is the finding: a hidden
// page whose timer did not run in time is TimeoutHidden, not frozen, and a
// page whose interrupt did not answer either is TimeoutUnknown, neither
// hung nor silent. A page whose evaluate did not answer while a navigation
// was under way and the browser process answered is TimeoutNavigating:
// the events prove the navigation, and the browser's answer the link.
func Diagnose(p Probes) (TimeoutCause, error) {
	late := func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
	switch {
	case p.Evaluate == nil && p.Visibility != "hidden":
		return TimeoutUnsettled, nil
	case p.Evaluate == nil && p.Timer == nil:
		return TimeoutHidden, nil
	case p.Evaluate == nil && late(p.Timer) && !p.Proven():
		return TimeoutHidden, nil
	case p.Evaluate == nil && late(p.Timer):
		return TimeoutFrozen, nil
	case p.Evaluate == nil:
		return TimeoutUnsettled, nil
	case !late(p.Evaluate):
		return TimeoutUnknown, p.Evaluate
	case p.Navigating && p.Browser == nil:
		return TimeoutNavigating, nil
	case p.Interrupt == nil:
		return TimeoutBusyScript, nil
	case late(p.Interrupt) && !p.Proven():
		return TimeoutUnknown, nil
	case late(p.Interrupt) && late(p.Browser):
		// Nothing came back at all; any answer would have proved the
		// connection alive.
		return TimeoutSilent, nil
	case late(p.Interrupt):
		return TimeoutHung, nil
	}
	return TimeoutBusyScript, p.Interrupt
}
