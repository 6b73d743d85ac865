package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// A start (Browser.Start, Browser.Watch) has one deadline for all its
// calls: the caller's context, cut to the eval timeout. No call has a
// bound of its own: a loaded machine or a distant browser gets a slower
// start, never a failed one, as long as the caller allows it. The calls go
// out together, in as few rounds as their order allows, so the deadline
// is not spent waiting for one answer before sending the next.
//
// A call still unanswered at the deadline fails the start with a
// [*tabstate.TimeoutError] that names it, and says whether the browser
// answered the start's other calls (slow to answer this one) or nothing
// at all (a silent connection, or a machine too loaded to answer).

// starter counts the answers of one start's calls.
type starter struct {
	op       string        // what timed out: "watch browser", "watch tab"
	limit    time.Duration // the start's bound
	advice   string        // the remedy of a start that timed out
	answered atomic.Int32  // calls that answered, with a result or a refusal
	timed    atomic.Bool   // the link noted the round trip of a browser call
}

// begin starts a start named op: its context ends with ctx or after the
// eval timeout, whichever comes first.
func (c *Config) begin(ctx context.Context, op string) (context.Context, context.CancelFunc, *starter) {
	limit := c.timeout()
	if d, ok := ctx.Deadline(); ok && time.Until(d) < limit {
		limit = max(time.Until(d), 0).Round(time.Millisecond)
	}
	s := &starter{op: op, limit: limit, advice: c.startAdvice()}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	return ctx, cancel, s
}

// startAdvice is the remedy of a start that timed out, in the program's
// terms when the Advice words timeouts.
func (c *Config) startAdvice() string {
	if r, ok := c.Advice.Timeout(tabstate.TimeoutSilent); ok {
		return r
	}
	return "a distant or loaded browser needs a longer Options.EvalTimeout, which bounds the start, or a caller's context with a later deadline"
}

// call makes one of the start's calls on sess; what names it in a timeout,
// as "Browser.setPermission storage-access". A call still unanswered when
// ctx's deadline passed gives the start's TimeoutError. The first answer
// of the browser's session (browserSession) is the link's round trip; the
// calls sent with it queued behind it (link.go).
func (s *starter) call(ctx context.Context, sess Session, what, method string, params, result any) error {
	start := time.Now()
	bs, browser := sess.(browserSession)
	if browser {
		sess = bs.b.d
	}
	err := sess.Call(ctx, method, params, result)
	if browser && err == nil && !s.timed.Swap(true) {
		bs.b.link.note(time.Since(start))
	}
	if err == nil || ctx.Err() == nil {
		s.answered.Add(1)
		return err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded) {
		return s.timeout(what)
	}
	return err
}

// timeout is the start's TimeoutError for the call what names, which did
// not answer by the deadline.
func (s *starter) timeout(what string) *tabstate.TimeoutError {
	te := &tabstate.TimeoutError{Op: s.op, Limit: s.limit, Advice: s.advice}
	if n := s.answered.Load(); n > 0 {
		te.Doing = fmt.Sprintf("%s did not answer, though the browser answered %d other %s of the start: it is slow to answer this one", what, n, plural(int(n), "call"))
		return te
	}
	te.Cause = tabstate.TimeoutSilent
	te.Doing = what + " did not answer, nor did any other call of the start: the browser answers nothing, " +
		"as over a silent connection or on a machine too loaded to answer"
	return te
}

// plural is noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// startTimeout returns the start's TimeoutError found in err, if any.
func startTimeout(err error) (*tabstate.TimeoutError, bool) {
	var te *tabstate.TimeoutError
	return te, errors.As(err, &te)
}
