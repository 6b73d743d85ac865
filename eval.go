package tabguard

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultEvalTimeout bounds an eval when no timeout is given.
const DefaultEvalTimeout = 5 * time.Second

// ErrEvalTimeout reports that an eval did not answer within its timeout.
// Errors that match it also match [context.DeadlineExceeded].
var ErrEvalTimeout = errors.New("eval timed out")

// ErrInvalidArgument reports bad input to a tabguard function, such as a nil
// page or an empty script.
var ErrInvalidArgument = errors.New("invalid argument")

// EvalWithTimeout calls eval with a context that is done after timeout and
// returns eval's result, or an error as soon as the deadline passes or ctx is
// done, whichever comes first. A timeout <= 0 means [DefaultEvalTimeout].
//
// It knows nothing of rod, so it bounds any backend. It returns at the
// deadline even if eval ignores its context; eval then finishes on its own
// goroutine, and no goroutine outlives the call once eval honors its context.
//
// On timeout the error matches both [ErrEvalTimeout] and
// [context.DeadlineExceeded] and names the timeout ("eval timed out after
// 5s"); an eval that gives up because its context reached that deadline is
// a timeout too. When ctx is done first, the result is ctx.Err(). Any other
// error from eval is returned unchanged.
func EvalWithTimeout[T any](ctx context.Context, timeout time.Duration, eval func(context.Context) (T, error)) (T, error) {
	var zero T
	if eval == nil {
		return zero, fmt.Errorf("%w: nil eval func", ErrInvalidArgument)
	}
	tctx, cancel := withEvalTimeout(ctx, timeout)
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
		return r.v, deadlineError(ctx, tctx, r.err)
	case <-tctx.Done():
		select {
		case r := <-done: // answered at the deadline: keep the answer
			return r.v, deadlineError(ctx, tctx, r.err)
		default:
			return zero, deadlineError(ctx, tctx, tctx.Err())
		}
	}
}

// withEvalTimeout derives the context an eval runs under: done after
// timeout (<= 0 means DefaultEvalTimeout) with a timeout error as its cause.
func withEvalTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = DefaultEvalTimeout
	}
	return context.WithTimeoutCause(ctx, timeout, &timeoutError{timeout: timeout})
}

// deadlineError decides what an eval's err means once it has returned. An
// error caused by tctx ending becomes the reason tctx ended: the parent's
// ctx.Err(), or the cause tctx was given (a timeout, a crash). Anything else
// is eval's own error and passes through unchanged.
func deadlineError(parent, tctx context.Context, err error) error {
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

// timeoutError is the error of a call that ran out of time.
type timeoutError struct {
	op      string // what timed out; empty means "eval"
	timeout time.Duration
	doing   string // what the tab was doing, if known
}

func (e *timeoutError) Error() string {
	op := e.op
	if op == "" {
		op = "eval"
	}
	msg := fmt.Sprintf("%s timed out after %v", op, e.timeout)
	if e.doing != "" {
		msg += " (" + e.doing + ")"
	}
	return msg
}

// Is makes errors.Is match both ErrEvalTimeout and context.DeadlineExceeded.
func (e *timeoutError) Is(target error) bool {
	return target == ErrEvalTimeout || target == context.DeadlineExceeded
}

// Timeout reports true, as net.Error timeouts do.
func (e *timeoutError) Timeout() bool { return true }
