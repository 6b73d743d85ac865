// Package tabtrace lets a program follow what a tabguard watcher does: each
// guarded call as it starts and ends, each change of a tab, each script
// the watcher stops and each heartbeat that went unanswered. It is to a
// watcher what net/http/httptrace is to an HTTP request: a struct of
// optional funcs, set in the watcher's Options (tabguard.Options.Trace,
// chromedpguard.Options.Trace), that costs nothing when it is nil.
//
// The package imports neither rod nor chromedp, so one Trace serves
// programs on either backend. The otelguard module builds a Trace that
// reports to OpenTelemetry.
package tabtrace

import (
	"context"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// Trace is a set of funcs a watcher calls as it works. Any of them may be
// nil. They run on the goroutine of the call or of the event that caused
// them, so they must return quickly, must not block, and must not call the
// watcher back, and they may run on several goroutines at once. A watcher with a nil *Trace calls nothing and allocates
// nothing for it.
type Trace struct {
	// CallStart is called as a guarded call starts, on the caller's
	// goroutine, before the tab is asked anything. The context it returns
	// is the one the call runs under, and the one CallDone gets: a span
	// started here is the parent of whatever the call does (the func given
	// to Watcher.Do sees it), and ends in CallDone. A nil return keeps
	// ctx. A call made with a nil context is not traced.
	CallStart func(ctx context.Context, c Call) context.Context
	// CallDone is called as a guarded call returns, on its goroutine, with
	// the context CallStart returned.
	CallDone func(ctx context.Context, c Call, d Done)
	// TabChanged is called for each change of a tab the watcher sees: a
	// page target opened, crashed, closed or discarded, a JavaScript
	// dialog opened, a tab watched or no longer watched, the browser gone.
	// It runs on the goroutine that reads the browser's events, but for a
	// tab watched or no longer watched, which runs on the goroutine of the
	// Watch or the Close (a BrowserWatcher's Close unwatches its tabs side
	// by side).
	TabChanged func(c Change)
	// ScriptTerminated is called after the watcher stopped a script that
	// held a tab past a call's deadline (Options.TerminateOnTimeout).
	ScriptTerminated func(s Termination)
	// HeartbeatMissed is called when a heartbeat (Options.Heartbeat) went
	// unanswered, just before every tab of the browser fails with
	// ErrBrowserGone.
	HeartbeatMissed func(h HeartbeatMiss)
	// HandBackFailed is called when a command a watcher's Close sent to
	// hand the tab back (to stop holding its requests or file choosers)
	// failed. Close does not wait for these answers, so it runs later, on
	// a goroutine of the watcher's.
	HandBackFailed func(h HandBack)
}

// Op names a guarded call. The set is small and fixed: it is fit for a
// metric's attribute.
type Op string

// The guarded calls, named after the watcher's methods.
const (
	OpEval          Op = "Eval"
	OpEvalFrame     Op = "EvalFrame"
	OpDOM           Op = "DOM"
	OpReadDOM       Op = "ReadDOM"
	OpDo            Op = "Do"
	OpNavigate      Op = "Navigate"
	OpReload        Op = "Reload"
	OpHandleDialog  Op = "HandleDialog"
	OpWait          Op = "Wait"
	OpCloseTab      Op = "CloseTab"
	OpScreenshot    Op = "Screenshot"
	OpPDF           Op = "PDF"
	OpRecover       Op = "Recover"
	OpCookies       Op = "Cookies"
	OpDoBrowserSide Op = "DoBrowserSide"
	OpSnapshot      Op = "Snapshot"
	OpAct           Op = "Act"
	// OpGuard is a chromedp action run through chromedpguard.Guard.
	OpGuard Op = "Guard"
)

// Call is a guarded call as it starts.
type Call struct {
	Op Op
	// TargetID is the tab's CDP target.
	TargetID string
	// URL is the tab's URL as the call starts, as the events tell it. It
	// may carry secrets (a token in the query): report its origin only
	// (Origin) where it leaves the program.
	URL string
}

// Done is how a guarded call ended.
type Done struct {
	Outcome Outcome
	// Err is the error the call returned; nil when Outcome is OutcomeOK.
	Err error
	// Reason is the sentinel Err matches, for errors.Is: the Reason of a
	// [*tabstate.BlockedError], tabstate.ErrEvalTimeout for the guard's
	// timeout, context.DeadlineExceeded for a wait on the caller's own
	// deadline (Wait), context.Canceled, ErrWatcherClosed,
	// ErrInvalidArgument, ErrURLBlocked, ErrSnapshotGone, ErrNoMatch or
	// ErrNoDialog; nil for an error that is none of them (a JavaScript
	// exception, a protocol error).
	Reason error
	// Refused says how a refused call learned it was refused.
	Refused Refused
	// Cause is what the tab was doing when the call timed out.
	Cause tabstate.TimeoutCause
	// Duration is how long the call took, from CallStart to CallDone.
	Duration time.Duration
}

// Change is news of one tab, or of the browser.
type Change struct {
	Kind ChangeKind
	// TargetID is the tab's CDP target; empty for BrowserGone.
	TargetID string
	// URL is the tab's URL, as the events tell it.
	URL string
	// Detail is the crash status ("oom", "crashed"), the dialog's type
	// ("alert", "beforeunload"), the replacement of a discarded tab, or
	// why the browser is gone.
	Detail string
}

// Termination is a script the watcher stopped with Runtime.terminateExecution.
type Termination struct {
	TargetID, URL string
	// Err is why stopping it failed; nil when it was stopped.
	Err error
}

// HandBack is a command that handed a tab back, or undid a policy of a
// start that failed, and did not succeed.
type HandBack struct {
	// TargetID is the tab's CDP target; empty for a browser-wide command.
	TargetID string
	// Method is the CDP method, such as "Fetch.disable".
	Method string
	// Err is how it failed.
	Err error
}

// HeartbeatMiss is a heartbeat that went unanswered.
type HeartbeatMiss struct {
	// Bound is how long the heartbeat waited for its answer.
	Bound time.Duration
}
