package tabguard

import (
	"context"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// DefaultEvalTimeout bounds an eval when no timeout is given.
const DefaultEvalTimeout = tabstate.DefaultEvalTimeout

// DefaultPatience is the watcher's patience when Options.Patience is zero.
const DefaultPatience = tabstate.DefaultPatience

// Errors of a guarded call that are not a tab's state; they are the values
// of package [tabstate], so an error from any backend matches them.
var (
	// ErrEvalTimeout reports that an eval did not answer within its timeout.
	// Errors that match it also match [context.DeadlineExceeded].
	ErrEvalTimeout = tabstate.ErrEvalTimeout
	// ErrInvalidArgument reports bad input to a tabguard function, such as a
	// nil page or an empty script.
	ErrInvalidArgument = tabstate.ErrInvalidArgument
)

// EvalWithTimeout calls eval with a context that is done after timeout and
// returns eval's result, or an error as soon as the deadline passes or ctx is
// done, whichever comes first. A timeout <= 0 means [DefaultEvalTimeout].
//
// It knows nothing of rod, so it bounds any backend; it is
// [tabstate.EvalWithTimeout], which a program that must not link rod calls
// directly. It returns at the deadline even if eval ignores its context;
// eval then finishes on its own goroutine, and no goroutine outlives the
// call once eval honors its context.
//
// On timeout the error matches both [ErrEvalTimeout] and
// [context.DeadlineExceeded] and names the timeout ("eval timed out after
// 5s"); an eval that gives up because its context reached that deadline is
// a timeout too. When ctx is done first, the result is ctx.Err(). Any other
// error from eval is returned unchanged.
func EvalWithTimeout[T any](ctx context.Context, timeout time.Duration, eval func(context.Context) (T, error)) (T, error) {
	return tabstate.EvalWithTimeout(ctx, timeout, eval)
}

// TimeoutError is the error of a call that ran out of time: its Cause says
// what the watcher found the tab doing, its Problem the error without the
// advice, for a program that names its own remedy. See
// [tabstate.TimeoutError].
type TimeoutError = tabstate.TimeoutError

// TimeoutCause is what a watcher found a tab doing when a call on it ran
// out of time; see [tabstate.TimeoutCause].
type TimeoutCause = tabstate.TimeoutCause

// The causes of a timeout; see [tabstate.TimeoutCause].
const (
	TimeoutUnknown    = tabstate.TimeoutUnknown
	TimeoutLoading    = tabstate.TimeoutLoading
	TimeoutUnsettled  = tabstate.TimeoutUnsettled
	TimeoutHidden     = tabstate.TimeoutHidden
	TimeoutFrozen     = tabstate.TimeoutFrozen
	TimeoutBusyScript = tabstate.TimeoutBusyScript
	TimeoutHung       = tabstate.TimeoutHung
	TimeoutSilent     = tabstate.TimeoutSilent
	TimeoutNavigating = tabstate.TimeoutNavigating
)
