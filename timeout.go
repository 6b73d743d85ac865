package tabguard

import (
	"context"
	"errors"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Budgets of the two calls a timed-out eval may make, so that it returns
// well within 250 ms of its deadline.
const (
	busyProbeTimeout = 100 * time.Millisecond
	terminateTimeout = 100 * time.Millisecond
)

// timedOut says what the tab was doing when an eval ran out of time, so a
// caller can tell a slow page from a stuck script, and stops a runaway
// script when Options.TerminateOnTimeout asks for it.
//
// A tab in its first load holds every renderer command, so it gets no
// call. On a committed page one short Runtime.evaluate, which does not
// await promises, tells a busy main thread (it gets no answer) from a page
// that answers but whose promise never settled.
func (w *Watcher) timedOut() string {
	s := w.State()
	if !s.Committed {
		if s.URL == "" {
			return "tab still loading"
		}
		return "tab still loading " + s.URL
	}
	switch busy, err := w.busy(); {
	case err != nil:
		return "page " + s.URL + " is loaded: a script is busy or a promise never settled"
	case !busy:
		return "page " + s.URL + " answers, but the eval's promise never settled"
	case !w.terminate:
		return "busy running script on committed page " + s.URL +
			": set Options.TerminateOnTimeout or call Runtime.terminateExecution to stop it"
	case w.terminateScript() != nil:
		return "busy running script on committed page " + s.URL + ": terminating the script failed: reload the tab"
	default:
		return "busy running script on committed page " + s.URL + ": script terminated, the tab answers again"
	}
}

// busy reports whether the page's main thread is too busy to answer a
// trivial evaluate within busyProbeTimeout. err is set when the probe
// could not tell, e.g. because the tab is refused or closing.
func (w *Watcher) busy() (bool, error) {
	ctx, cancel := context.WithTimeout(w.page.GetContext(), busyProbeTimeout)
	defer cancel()
	err := w.probe(w.page.Context(ctx), func(p *rod.Page) error {
		_, err := proto.RuntimeEvaluate{Expression: "0"}.Call(p)
		return err
	})
	switch {
	case err == nil:
		return false, nil
	case ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		return true, nil
	}
	return false, err
}

// terminateScript stops the script running on the page. Chrome handles
// Runtime.terminateExecution by interrupting the running script, so it
// answers in milliseconds even while a loop holds the main thread.
func (w *Watcher) terminateScript() error {
	ctx, cancel := context.WithTimeout(w.page.GetContext(), terminateTimeout)
	defer cancel()
	err := w.probe(w.page.Context(ctx), func(p *rod.Page) error {
		return proto.RuntimeTerminateExecution{}.Call(p)
	})
	if err != nil {
		w.logf("tabguard: terminating a runaway script failed", err)
	}
	return err
}
