package tabstate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultEvalTimeout bounds an eval when no timeout is given.
const DefaultEvalTimeout = 5 * time.Second

// DefaultPatience is how long a watcher waits, when no patience is given,
// for the browser or the page to answer before the absence of an answer
// means something (a watcher's Options.Patience).
const DefaultPatience = time.Second

// Errors of a guarded call that are not a tab's state. Test for them with
// [errors.Is].
var (
	// ErrEvalTimeout reports that a call did not answer within its timeout.
	// Errors that match it also match [context.DeadlineExceeded].
	ErrEvalTimeout = errors.New("eval timed out")
	// ErrInvalidArgument reports bad input, such as a nil page or an empty
	// script.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrWatcherClosed reports a call on a watcher after its Close.
	ErrWatcherClosed = errors.New("watcher is closed")
	// ErrSnapshotGone reports a read of a DOM snapshot the page no longer
	// holds: it navigated, or the snapshot went unread, or newer snapshots
	// pushed it out.
	ErrSnapshotGone = errors.New("DOM snapshot is gone")
	// ErrNoMatch reports a DOM read whose CSS selector matches nothing.
	ErrNoMatch = errors.New("selector matches nothing")
	// ErrURLBlocked reports a navigation that a URLPolicy does not allow.
	ErrURLBlocked = errors.New("URL not allowed")
)

// EvalWithTimeout calls eval with a context that is done after timeout and
// returns eval's result, or an error as soon as the deadline passes or ctx is
// done, whichever comes first. A timeout <= 0 means [DefaultEvalTimeout].
//
// It knows nothing of any browser driver, so it bounds any backend. It
// returns at the deadline even if eval ignores its context; eval then
// finishes on its own goroutine, and no goroutine outlives the call once
// eval honors its context.
//
// On timeout the error is a [*TimeoutError], which matches both
// [ErrEvalTimeout] and [context.DeadlineExceeded] and names the timeout
// ("eval timed out after 5s"); an eval that gives up because its context
// reached that deadline is a timeout too. When ctx is done first, the result
// is ctx.Err(). Any other error from eval is returned unchanged.
func EvalWithTimeout[T any](ctx context.Context, timeout time.Duration, eval func(context.Context) (T, error)) (T, error) {
	var zero T
	if eval == nil {
		return zero, fmt.Errorf("%w: nil eval func", ErrInvalidArgument)
	}
	tctx, cancel := WithEvalTimeout(ctx, timeout)
	defer cancel()

	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned eval can still send and exit
	go func() {
		v, err := eval(tctx)
		done <- result{v, err}
	}()

	select {
	case r := <-done:
		return r.v, DeadlineError(ctx, tctx, r.err)
	case <-tctx.Done():
		select {
		case r := <-done: // answered at the deadline: keep the answer
			return r.v, DeadlineError(ctx, tctx, r.err)
		default:
			return zero, DeadlineError(ctx, tctx, tctx.Err())
		}
	}
}

// WithEvalTimeout derives the context a call runs under: done after
// timeout (<= 0 means DefaultEvalTimeout) with a [*TimeoutError] as its cause.
func WithEvalTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = DefaultEvalTimeout
	}
	return context.WithTimeoutCause(ctx, timeout, &TimeoutError{Limit: timeout})
}

// DeadlineError decides what a call's err means once it has returned,
// for a call run under tctx, derived from parent. An error caused by tctx
// ending becomes the reason tctx ended: the parent's ctx.Err(), or the cause
// tctx was given (a timeout, a crash). Anything else is the call's own error
// and passes through unchanged.
func DeadlineError(parent, tctx context.Context, err error) error {
	if err == nil || tctx.Err() == nil {
		return err
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return err
	}
	if perr := parent.Err(); perr != nil {
		return perr
	}
	return context.Cause(tctx)
}
