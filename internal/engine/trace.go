package engine

import (
	"context"
	"errors"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// The ops the backends pass to Do, DoAction and DoBrowserSide: each words
// the call in a timeout, and names it to the Trace.
const (
	OpEval        = ""
	OpDo          = "guarded call"
	OpGuard       = "guarded chromedp action"
	OpScreenshot  = "screenshot"
	OpCookies     = "cookies"
	OpBrowserSide = "browser-side call"
)

// traceOp is the Trace's name of op.
func traceOp(op string) tabtrace.Op {
	switch op {
	case OpEval:
		return tabtrace.OpEval
	case OpGuard:
		return tabtrace.OpGuard
	case OpScreenshot:
		return tabtrace.OpScreenshot
	case OpPDF:
		return tabtrace.OpPDF
	case OpCookies:
		return tabtrace.OpCookies
	case OpBrowserSide:
		return tabtrace.OpDoBrowserSide
	}
	return tabtrace.OpDo
}

// traced is a guarded call the Trace follows. It rides in the call's
// context, for admit to note a refusal's stage.
type traced struct {
	call    tabtrace.Call
	start   time.Time
	refused tabtrace.Refused
}

type tracedKey struct{}

// tracing reports whether the Trace follows a call made with ctx. A call
// with a nil context is refused before it starts, and not traced.
func (t *Tab) tracing(ctx context.Context) bool {
	return t.b.cfg.Trace != nil && ctx != nil
}

// callStart tells the Trace that a call starts, and returns the context
// it runs under.
func (t *Tab) callStart(ctx context.Context, op tabtrace.Op) (context.Context, *traced) {
	rec := &traced{call: tabtrace.Call{Op: op, TargetID: t.id, URL: t.State().URL}, start: time.Now()}
	if f := t.b.cfg.Trace.CallStart; f != nil {
		if c := f(ctx, rec.call); c != nil {
			ctx = c
		}
	}
	return context.WithValue(ctx, tracedKey{}, rec), rec
}

// callDone tells the Trace how the call rec ended with err.
func (t *Tab) callDone(ctx context.Context, rec *traced, err error) {
	if f := t.b.cfg.Trace.CallDone; f != nil {
		f(ctx, rec.call, done(rec, err))
	}
}

// noteRefused records on the traced call of ctx, if any, that it was
// refused up front; barrier says after the barrier.
func (t *Tab) noteRefused(ctx context.Context, barrier bool) {
	if !t.tracing(ctx) {
		return
	}
	if rec, _ := ctx.Value(tracedKey{}).(*traced); rec != nil && rec.refused == tabtrace.NotRefused {
		rec.refused = tabtrace.RefusedFromState
		if barrier {
			rec.refused = tabtrace.RefusedAfterBarrier
		}
	}
}

// failedReasons are the sentinels a failed call may match.
var failedReasons = []error{
	tabstate.ErrInvalidArgument, tabstate.ErrURLBlocked, tabstate.ErrSnapshotGone,
	tabstate.ErrNoMatch, tabstate.ErrNoDialog, tabstate.ErrNotActionable, tabstate.ErrStaleRef,
}

// done reads err, how the call rec ended.
func done(rec *traced, err error) tabtrace.Done {
	d := tabtrace.Done{Err: err, Duration: time.Since(rec.start)}
	var (
		be *tabstate.BlockedError
		te *tabstate.TimeoutError
	)
	switch {
	case err == nil:
	case errors.As(err, &te):
		d.Outcome, d.Reason, d.Cause = tabtrace.OutcomeTimedOut, tabstate.ErrEvalTimeout, te.Cause
	case errors.As(err, &be), errors.Is(err, tabstate.ErrWatcherClosed):
		d.Outcome, d.Refused = tabtrace.OutcomeRefused, rec.refused
		if d.Refused == tabtrace.NotRefused {
			d.Refused = tabtrace.RefusedInFlight
		}
		d.Reason = tabstate.ErrWatcherClosed
		if be != nil {
			d.Reason = be.Reason
		}
	case errors.Is(err, context.DeadlineExceeded):
		d.Outcome, d.Reason = tabtrace.OutcomeTimedOut, context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		d.Outcome, d.Reason = tabtrace.OutcomeCanceled, context.Canceled
	default:
		d.Outcome = tabtrace.OutcomeFailed
		for _, r := range failedReasons {
			if errors.Is(err, r) {
				d.Reason = r
				break
			}
		}
	}
	return d
}

// changed tells the Trace of a change of a tab.
func (b *Browser) changed(kind tabtrace.ChangeKind, id, url, detail string) {
	if tr := b.cfg.Trace; tr != nil && tr.TabChanged != nil {
		tr.TabChanged(tabtrace.Change{Kind: kind, TargetID: id, URL: url, Detail: detail})
	}
}

// registryChange tells the Trace of a change of a page target.
func (b *Browser) registryChange(kind ChangeKind, snap snapshot) {
	if b.cfg.Trace == nil || b.cfg.Trace.TabChanged == nil {
		return
	}
	s := snap.state
	url := s.URL
	if url == "" {
		url = snap.url
	}
	switch {
	case kind == TabOpened:
		b.changed(tabtrace.TabOpened, snap.id, url, "")
	case kind == TabCrashed:
		b.changed(tabtrace.TabCrashed, snap.id, url, s.CrashReason)
	case s.Discarded:
		b.changed(tabtrace.TabDiscarded, snap.id, url, s.ReplacedBy)
	default:
		b.changed(tabtrace.TabClosed, snap.id, url, "")
	}
}

// terminated tells the Trace that the Tab stopped a script, or failed to.
func (t *Tab) terminated(err error) {
	if tr := t.b.cfg.Trace; tr != nil && tr.ScriptTerminated != nil {
		tr.ScriptTerminated(tabtrace.Termination{TargetID: t.id, URL: t.State().URL, Err: err})
	}
}

// heartbeatMissed tells the Trace that a heartbeat went unanswered.
func (b *Browser) heartbeatMissed(bound time.Duration) {
	if tr := b.cfg.Trace; tr != nil && tr.HeartbeatMissed != nil {
		tr.HeartbeatMissed(tabtrace.HeartbeatMiss{Bound: bound})
	}
}
