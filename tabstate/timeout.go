package tabstate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// TimeoutError is the error of a call that ran out of time. It matches
// [ErrEvalTimeout] and [context.DeadlineExceeded].
type TimeoutError struct {
	// Op is what timed out, such as "navigate to URL"; empty means "eval".
	Op string
	// Limit is the timeout the call had.
	Limit time.Duration
	// Doing is what the tab was doing, if known, such as "tab still loading URL".
	Doing string
	// Cause is what the watcher found the tab doing, for a program to act
	// on, or to name its own remedy by.
	Cause TimeoutCause
	// Advice is the call that ends the cause, in the watcher's own terms,
	// such as "close it with Watcher.CloseTab and open a new one"; empty
	// when there is nothing to do but wait or retry.
	Advice string
	// Frame is the iframe whose first document the call waited for, to
	// its deadline; empty for a call in the tab itself.
	Frame string
	// Step is where a call of several steps was when its time ran out:
	// the action of a guarded chromedp task list that was running, such as
	// "action 4 of 6, *page.PrintToPDFParams", or the last CDP method a
	// guarded rod call sent, "last sent Page.navigate". It is empty for a
	// call of one step.
	Step string
	// Milestones are the milestones the main frame's document had reached
	// when the call ran out of time, which a wait for the tab's state
	// (Watcher.Wait) or for an element (a guarded chromedp wait) tells
	// from a page that stopped short of them. A wait's Doing says them too.
	Milestones Milestone
	// Console is the tab's last console messages when the call ran out of
	// time, oldest first, at most five: what the page said as it stalled,
	// for a program to show. Error leaves them out.
	Console []ConsoleMessage

	// Reworded says Advice is the program's word for it ([Advice].Word).
	Reworded bool
}

// Error reads like "eval timed out after 5s (tab still loading URL)", the
// advice after what the tab was doing: "(renderer of page URL answers
// nothing: close it with Watcher.CloseTab and open a new one)". A Step
// follows the call's name: "guarded call (last sent Page.navigate) timed
// out after 10s (...)".
func (e *TimeoutError) Error() string { return e.message(true) }

// Problem is the error without its advice, for a program that names its
// own remedy: an HTTP endpoint, or a tool an agent calls.
func (e *TimeoutError) Problem() string { return e.message(false) }

func (e *TimeoutError) message(advice bool) string {
	op := e.Op
	if op == "" {
		op = "eval"
	}
	if e.Step != "" {
		op += " (" + e.Step + ")"
	}
	msg := fmt.Sprintf("%s timed out after %v", op, e.Limit)
	inner := e.Doing
	if advice && e.Advice != "" {
		if inner != "" {
			inner += ": "
		}
		inner += e.Advice
	}
	if inner != "" {
		msg += " (" + inner + ")"
	}
	return msg
}

// Is makes errors.Is match both ErrEvalTimeout and context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrEvalTimeout || target == context.DeadlineExceeded
}

// Timeout reports true, as net.Error timeouts do.
func (e *TimeoutError) Timeout() bool { return true }

// Timeout is the error of a call on a tab at url that ran out of time after
// limit, where the watcher found cause; advice names the watcher's own call
// for a cause. terminate, when not nil, stops a script that holds the page
// (a watcher's TerminateOnTimeout), within bound: it is called for a busy
// script, and for silence, which a script that holds the page and its
// interrupt looks like; its outcome is said in Doing.
func Timeout(limit time.Duration, url string, cause TimeoutCause, advice func(TimeoutCause) string,
	terminate func() error, bound time.Duration) *TimeoutError {
	if cause == TimeoutSilent && terminate != nil && terminate() == nil {
		// The terminate answered: the connection lives, a script was busy.
		return &TimeoutError{Limit: limit, Cause: TimeoutBusyScript,
			Doing: TimeoutBusyScript.Describe(url) + ": script terminated, the tab answers again"}
	}
	te := &TimeoutError{Limit: limit, Cause: cause, Doing: cause.Describe(url), Advice: advice(cause)}
	if cause != TimeoutBusyScript || terminate == nil {
		return te
	}
	te.Advice = ""
	switch err := terminate(); {
	case err == nil:
		te.Doing += ": script terminated, the tab answers again"
	case errors.Is(err, context.DeadlineExceeded):
		// The request is out; Chrome acts on it when it gets to it.
		te.Doing += ": terminating the script, unconfirmed after " + bound.String()
	default:
		te.Doing += ": terminating the script failed"
		te.Advice = "reload the tab (Watcher.Reload)"
	}
	return te
}
