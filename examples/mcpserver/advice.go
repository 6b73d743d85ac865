package main

import (
	"errors"
	"fmt"

	"github.com/tabguard/tabguard"
)

// errUnknownTab is the tool error for a tab ID the server does not know.
var errUnknownTab = errors.New("unknown tab")

// toolError words err for a model: what is wrong, short, and the tool that
// fixes it. The library's own advice names its Go calls, which a model
// does not have.
func toolError(err error) error {
	var (
		be *tabguard.BlockedError
		te *tabguard.TimeoutError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &be):
		return errors.New(be.Problem() + ": " + advice(be.Reason))
	case errors.As(err, &te):
		if a := timeoutAdvice(te.Cause); a != "" {
			return errors.New(te.Problem() + ": " + a)
		}
		return errors.New(te.Problem())
	case errors.Is(err, tabguard.ErrNoDialog):
		return errors.New("no JavaScript dialog is open: nothing to handle")
	case errors.Is(err, tabguard.ErrSnapshotGone):
		return errors.New("that snapshot is gone (the page navigated, or it went unread for a minute): call get_tab_dom without snapshot and offset")
	case errors.Is(err, tabguard.ErrURLBlocked):
		return fmt.Errorf("%v: the server does not open it", err)
	}
	return err
}

// timeoutAdvice names the tool that ends what held a call past its
// deadline, if any. The server stops runaway scripts itself
// (TerminateOnTimeout), so a busy script needs nothing but a retry.
func timeoutAdvice(cause tabguard.TimeoutCause) string {
	switch cause {
	case tabguard.TimeoutHung:
		return "call handle_dialog if a dialog is open; otherwise call close_tab and open_tab"
	case tabguard.TimeoutSilent:
		return "the server's browser does not answer: restart the server"
	case tabguard.TimeoutBusyScript, tabguard.TimeoutLoading, tabguard.TimeoutUnknown:
		return "retry the call"
	}
	return ""
}

// advice names the tool that ends a refusal.
func advice(reason error) string {
	switch reason {
	case tabguard.ErrTabCrashed:
		return "call reload_tab"
	case tabguard.ErrNoDocument:
		return "call navigate, or reload_tab to try the same URL"
	case tabguard.ErrDialogOpen:
		return "call handle_dialog"
	case tabguard.ErrTabClosed, tabguard.ErrTabDiscarded:
		return "call open_tab"
	case tabguard.ErrBrowserGone:
		return "the server has lost its browser: restart it"
	case tabguard.ErrPaused:
		return "a debugger paused the page: resume it there"
	case tabguard.ErrNavigated, tabguard.ErrTerminated:
		return "retry the call"
	}
	return "call list_tabs"
}
