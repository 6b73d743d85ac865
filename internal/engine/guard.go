package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// begin admits a call unless the tab refuses it (allow names the refusals
// it goes ahead despite) and returns it with the context it runs under,
// which ends at the call's deadline (see clock), when ctx does, or when the
// tab dies under it. The caller must end the call with t.end.
func (t *Tab) begin(ctx context.Context, op string, allow func(error) bool, probe bool) (*inflight, context.Context, error) {
	return t.beginCall(ctx, op, &inflight{}, allow, probe)
}

// beginCall is begin for a call made already. A tab that refuses the call
// refuses it even when ctx has ended; a call admitted after the caller's
// deadline passed is answered with expired, and nothing is sent.
func (t *Tab) beginCall(ctx context.Context, op string, call *inflight, allow func(error) bool, probe bool) (*inflight, context.Context, error) {
	if ctx == nil {
		return nil, nil, fmt.Errorf("%w: nil context", tabstate.ErrInvalidArgument)
	}
	cctx, cut := context.WithCancelCause(ctx)
	call.cut = cut
	if err := t.admit(ctx, call, allow); err != nil {
		cut(nil)
		return nil, nil, err
	}
	if err := expired(ctx, op); err != nil {
		t.leave(call)
		cut(nil)
		return nil, nil, err
	}
	t.arm(ctx, call, probe)
	if probe && !call.browserSide {
		t.awaitPrint(cctx, call)
	}
	return call, cctx, nil
}

// end ends a call begin admitted. timedOut says it ran out of time, so
// its clock's probes are waited for.
func (t *Tab) end(call *inflight, timedOut bool) {
	call.clock.stop(timedOut)
	t.leave(call)
	call.cut(nil)
	if !timedOut && !call.browserSide {
		t.answered()
	}
}

// timedOut reports whether a call that returned err under cctx, derived
// from the caller's ctx, ran out of time: its own deadline or the caller's.
func timedOut(ctx, cctx context.Context, err error) bool {
	if err == nil || cctx.Err() == nil || !ctxError(err) {
		return false
	}
	cause := context.Cause(cctx)
	_, ours := cause.(*tabstate.TimeoutError)
	return ours || errors.Is(cause, context.DeadlineExceeded) && ctx.Err() != nil
}

// expired is the answer to a call made once the caller's ctx has ended:
// for a deadline that passed, a timeout that says so, for the program
// that gave a whole job one deadline.
func expired(ctx context.Context, op string) error {
	if ctx == nil || ctx.Err() == nil {
		return nil
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	return &tabstate.TimeoutError{Op: op, Doing: "the caller's deadline had passed before the call"}
}

// opName is op as a timeout names it: "" is an eval.
func opName(op string) string {
	if op == "" {
		return "eval"
	}
	return op
}

// ctxError reports whether err is a context's error.
func ctxError(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// Do runs fn, the driver's call on the tab, under the guard: it refuses a
// tab that cannot answer without calling fn, bounds fn by the eval
// timeout, and cuts it short through its context when the renderer dies,
// a dialog opens, the debugger pauses, the tab begins a download, the tab
// closes or the browser goes away. A call that runs out of time, its own
// or the caller's deadline, gives a [*tabstate.TimeoutError] naming op
// ("" is "eval") and saying what the tab was doing; fn's own errors that
// mean the tab cannot answer become the tab's refusal; any other error of
// fn passes through. A call that answered before a download began keeps
// its answer (download.go). A timeout, and a refusal that cut the call
// short, name the step the call was at when ctx carries [Steps].
func (t *Tab) Do(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	if !t.tracing(ctx) {
		return t.do(ctx, op, fn, false)
	}
	ctx, rec := t.callStart(ctx, traceOp(op))
	err := t.do(ctx, op, fn, false)
	t.callDone(ctx, rec, err)
	return err
}

// DoAction is Do for a program's own call, which may answer nil although
// its context ended: rod's wait helpers answer nothing when their context
// ends, and chromedp's Navigate takes a crashed frame's end of loading for
// the load's end. So a call cut short is never a success: it answers why
// it was cut (the timeout, with what the tab was doing; the tab's death; a
// download; the Tab's Close; the caller's own ctx), whatever fn answered.
// A call whose fn failed at the reply to its own navigation answers
// ErrDownload when the navigation became a download.
func (t *Tab) DoAction(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	if !t.tracing(ctx) {
		return t.do(ctx, op, fn, true)
	}
	ctx, rec := t.callStart(ctx, traceOp(op))
	err := t.do(ctx, op, fn, true)
	t.callDone(ctx, rec, err)
	return err
}

// do is Do; action says fn is the program's, which may answer nil when
// its context was cut.
func (t *Tab) do(ctx context.Context, op string, fn func(ctx context.Context) error, action bool) error {
	call, cctx, err := t.beginCall(ctx, op, &inflight{onDownload: true}, nil, true)
	if err != nil {
		return err
	}
	err = fn(cctx)
	if action && cctx.Err() != nil {
		err = cctx.Err() // cut short: the cause is the answer (settle)
	}
	late := timedOut(ctx, cctx, err)
	t.end(call, late)
	if err == nil {
		return t.chooserDuring(call)
	}
	return withStep(ctx, t.outcome(ctx, cctx, call, op, err, late, action))
}

// outcome is the answer of call, which ended with err; late says it ran
// out of time.
func (t *Tab) outcome(ctx, cctx context.Context, call *inflight, op string, err error, late, action bool) error {
	if dropped := t.droppedDuring(call); dropped != nil {
		return dropped
	}
	switch {
	case late:
		te := t.timedOut(&call.clock, op)
		t.logf("tabguard: "+opName(op)+" timed out", te)
		return te
	case context.Cause(cctx) == errDownloadBegun && ctxError(err):
		return t.downloadSince(ctx, call)
	case t.terminatedDuring(call, err):
		err = t.blocked(tabstate.ErrTerminated)
	case err == tabstate.ErrNavigated: // the driver found the document gone (Gone)
		err = t.blocked(tabstate.ErrNavigated)
	case t.navigatedDuring(call, err):
		err = t.blocked(tabstate.ErrNavigated)
	default:
		if action {
			if dl := t.downloadDuring(ctx, call, err); dl != nil {
				return dl
			}
		}
		if denied := t.localNetworkDenied(ctx, call, err); denied != nil {
			return denied
		}
	}
	return t.explain(t.settle(ctx, cctx, t.classify(err)))
}

// DoBrowserSide runs fn, a call that Chrome's browser process answers
// without the renderer (Network.getCookies, Target.getTargetInfo, the
// Browser and Storage domains), under the deadline of Do, naming op in a
// timeout. It goes to any tab that still exists, crashed, holding a
// dialog, paused or with no document, and only the tab's end (closed,
// discarded, the browser gone, the watcher closed) cuts it short.
func (t *Tab) DoBrowserSide(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	if !t.tracing(ctx) {
		return t.doBrowserSide(ctx, op, fn)
	}
	ctx, rec := t.callStart(ctx, traceOp(op))
	err := t.doBrowserSide(ctx, op, fn)
	t.callDone(ctx, rec, err)
	return err
}

// doBrowserSide is DoBrowserSide.
func (t *Tab) doBrowserSide(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	call, cctx, err := t.beginCall(ctx, op, &inflight{browserSide: true}, allowAnyLive, false)
	if err != nil {
		return err
	}
	err = fn(cctx)
	late := timedOut(ctx, cctx, err)
	t.end(call, late)
	if err == nil {
		return nil
	}
	if dropped := t.droppedDuring(call); dropped != nil {
		return dropped
	}
	if late {
		return &tabstate.TimeoutError{Op: op, Limit: call.clock.limit}
	}
	return t.settle(ctx, cctx, t.classify(err))
}

// change runs fn, a call that changes the tab rather than reading it,
// under the deadline and cut-off of Do, without the probes; allow says
// which refusals it goes ahead despite, and op names it in a timeout.
// Chrome answers "Not attached to an active page" for a moment while a
// navigation swaps the tab's document, so fn runs again then
// (whenAttached).
func (t *Tab) change(ctx context.Context, op string, allow func(error) bool, fn func(ctx context.Context) error) error {
	call, cctx, err := t.begin(ctx, op, allow, false)
	if err != nil {
		return err
	}
	err = t.whenAttached(cctx, func() error { return fn(cctx) })
	late := timedOut(ctx, cctx, err)
	t.end(call, late)
	if err == nil {
		return nil
	}
	if dropped := t.droppedDuring(call); dropped != nil {
		return dropped
	}
	if late {
		return &tabstate.TimeoutError{Op: op, Limit: call.clock.limit}
	}
	return t.explain(t.settle(ctx, cctx, t.classify(err)))
}

// settle says what a call's context error means: the refusal that cut it
// short, the loss of the browser on a driver that cancels every context of
// a lost browser, or the caller's own ctx ending. Any other error passes
// through, as does err when none of these ended it.
func (t *Tab) settle(ctx, cctx context.Context, err error) error {
	if err == nil || cctx.Err() == nil || !ctxError(err) {
		return err
	}
	switch cause := context.Cause(cctx); {
	case errors.Is(cause, tabstate.ErrWatcherClosed), isRefusal(cause):
		return cause
	case errors.Is(cause, context.Canceled) && t.b.lost():
		return t.blocked(tabstate.ErrBrowserGone)
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	// The call's own clock cut it after it had answered err (a call of
	// the program's own that timed out first): err is its answer, never
	// a success.
	return err
}

// isRefusal reports whether err is a refusal of the tab's.
func isRefusal(err error) bool {
	_, ok := err.(*tabstate.BlockedError)
	return ok
}

// terminatedDuring reports whether Runtime.terminateExecution stopped
// call's script. Chrome 156 answers such an evaluate (awaitPromise,
// returnByValue) with a bare -32603 "Internal error", which is only taken
// for a termination when this Tab terminated a script meanwhile; a
// termination by another client then passes through as it is. An
// "Execution was terminated" error always counts.
func (t *Tab) terminatedDuring(call *inflight, err error) bool {
	f := t.b.d.Classify(err)
	switch {
	case f.Kind != Protocol:
		return false
	case f.Code == -32000 && f.Message == "Execution was terminated":
		return true
	case f.Code != -32603:
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.terminations != call.terminations
}

// navigatedDuring reports whether err is Chrome's bare "Internal error",
// which Runtime.evaluate can give when its document goes away under it,
// and navigation news arrived while call ran, or the tab is now refused:
// then that is the reason. The news may trail the reply, so it is awaited
// for up to the event grace. Otherwise the error passes through as it is.
func (t *Tab) navigatedDuring(call *inflight, err error) bool {
	if f := t.b.d.Classify(err); f.Kind != Protocol || f.Code != -32603 {
		return false
	}
	return t.await(t.life, t.b.cfg.grace(), func() bool {
		return t.tab.Seq() != call.navSeq || t.refusal() != nil
	})
}

// explain completes a crash error cut short by Inspector.targetCrashed,
// which carries no status: Chrome sends Target.targetCrashed, with the
// status, within milliseconds of it, so the error waits up to the event grace
// for it, and a crash reads the same wherever it surfaces.
func (t *Tab) explain(err error) error {
	var be *tabstate.BlockedError
	if !errors.As(err, &be) || be.Reason != tabstate.ErrTabCrashed || be.Detail != "" {
		return err
	}
	t.await(t.life, t.b.cfg.grace(), func() bool {
		s := t.tab.State()
		return !s.Crashed || s.CrashReason != ""
	})
	return t.blocked(tabstate.ErrTabCrashed)
}

// classify maps the driver errors that mean the tab cannot answer to the
// tab's refusal; anything else passes through.
func (t *Tab) classify(err error) error {
	f := t.b.classify(err)
	switch {
	case f.Kind == Protocol && f.Code == DroppedCode:
		// A resuming connection's answer to a call its drop cut.
		return t.b.droppedError(true)
	case f.Kind == Protocol && f.Code == -32000 && f.Message == "Target crashed":
		// Chrome answers held calls so when the crashed tab is navigated
		// again; the state already has the crash from its events.
		return t.blocked(tabstate.ErrTabCrashed)
	case f.Kind == Detached, f.Kind == Protocol && f.Code == -32001, t.b.noTarget(err):
		return t.blocked(tabstate.ErrTabClosed)
	case f.Kind == Protocol && f.Code == -32000 && (f.Message == "Inspected target navigated or closed" ||
		strings.HasPrefix(f.Message, "Cannot find default execution context") ||
		f.Message == "Cannot find context with specified id"):
		// The document the eval ran in was replaced (or, if the state says
		// so, the tab closed). Retrying is the caller's call, within its
		// own deadline, never a silent loop here.
		return t.blocked(tabstate.ErrNavigated)
	case f.Kind == Lost:
		t.b.Disconnected(f.Reason)
		return t.blocked(tabstate.ErrBrowserGone)
	case f.Kind == Other && !ctxError(err) && t.lostWith(err):
		return t.blocked(tabstate.ErrBrowserGone)
	}
	return err
}

// lostWith reports whether err, an error the driver could not place, came
// with the loss of the connection, whatever its type: a transport of the
// program's own hands the calls in flight its own error as the connection
// ends, a moment before the driver reports the end, so the call waits up
// to the event grace for the engine to learn of it. err is then the loss's
// reason, when nothing else explains it.
func (t *Tab) lostWith(err error) bool {
	if t.b.unplacedError(err) {
		return true
	}
	if t.await(t.life, t.b.cfg.grace(), func() bool { return t.tab.State().BrowserGone }) {
		return true
	}
	// Noted again as the call answers: a loss reported just after still
	// has err for its reason.
	return t.b.unplacedError(err)
}

// blocked returns the state's refusal if it has one, else one for reason.
func (t *Tab) blocked(reason error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.refusal(); err != nil {
		return err
	}
	return t.b.cfg.Advice.Refusal(&tabstate.BlockedError{Reason: reason, URL: t.tab.State().URL, Console: t.console.tail(consoleContext)})
}

// protocolError reports Chrome's answer message to a command.
func (t *Tab) protocolError(err error, message string) bool {
	if err == nil {
		return false
	}
	f := t.b.d.Classify(err)
	return f.Kind == Protocol && f.Message == message
}
