package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tabguard/tabguard"
)

// neverSettles is an eval whose promise never settles: it is in flight
// until something ends it.
const neverSettles = `() => new Promise(() => {})`

// busyTimeoutRow lets the pool's session TIMEOUT expire with an eval in
// flight. browserless then writes "HTTP/1.1 408 Request Timeout" into the
// upgraded socket: the eval must end with ErrBrowserGone naming it, and
// the process live on.
func busyTimeoutRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: fmt.Sprintf("session `TIMEOUT=%d` expires with an eval in flight", p.cfg.timeout.Milliseconds())}
	s, err := openSession(ctx, p, pageURL, &tabguard.Options{EvalTimeout: time.Minute})
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	expired := s.began.Add(p.cfg.timeout)
	if time.Until(expired) < 500*time.Millisecond {
		return r.miss("the session took %s to set up, too close to its TIMEOUT", dur(time.Since(s.began)))
	}
	ectx, cancel := context.WithTimeout(ctx, p.cfg.timeout+20*time.Second)
	defer cancel()
	done := s.evalAsync(ectx, neverSettles)
	a, err := await(done, time.Until(expired)+15*time.Second)
	if err != nil {
		return r.miss("the eval in flight: %v", err)
	}
	r.returned = code(a.err) + "; the process did not panic"
	return timedOut(r, p, a.err, a.at, expired)
}

// idleTimeoutRow lets the pool's session TIMEOUT expire with no call in
// flight: the watcher must learn it from the socket alone, and Wait,
// Blocked and the next eval then refuse with ErrBrowserGone.
func idleTimeoutRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: fmt.Sprintf("session `TIMEOUT=%d` expires while idle; `Wait` (from before), `Blocked`, the next eval", p.cfg.timeout.Milliseconds())}
	s, err := openSession(ctx, p, pageURL, nil)
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	expired := s.began.Add(p.cfg.timeout)
	wctx, cancel := context.WithTimeout(ctx, p.cfg.timeout+15*time.Second)
	defer cancel()
	// No condition holds: Wait returns when the tab is refused.
	_, werr := s.w.Wait(wctx, func(tabguard.TabState) bool { return false })
	knew := time.Now()
	if !errors.Is(werr, tabguard.ErrBrowserGone) {
		return r.miss("Wait returned %v, want ErrBrowserGone", werr)
	}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.w.Blocked(bctx); !errors.Is(err, tabguard.ErrBrowserGone) {
		return r.miss("Blocked returned %v, want ErrBrowserGone", err)
	}
	_, eerr := s.w.Eval(bctx, "() => 1")
	r.returned = code(eerr) + " (`Wait` and `Blocked` gave it too)"
	return timedOut(r, p, eerr, knew, expired)
}

// timedOut checks and times what a session's TIMEOUT gave: ErrBrowserGone
// naming the 408, at was when it came, within a second of browserless's
// log line for the timeout, and not before Connect's start plus TIMEOUT.
func timedOut(r row, p *pool, err error, at, expired time.Time) row {
	logged, lerr := p.loggedBefore(timeoutLogged, at)
	if lerr != nil {
		return r.miss("%v", lerr)
	}
	late := at.Sub(logged)
	r.took = fmt.Sprintf("%s after browserless logged the timeout (%s after the Connect call plus `TIMEOUT`)", dur(late), dur(at.Sub(expired)))
	switch {
	case !errors.Is(err, tabguard.ErrBrowserGone):
		return r.miss("got %v, want ErrBrowserGone", err)
	case !strings.Contains(err.Error(), "408"):
		return r.miss("the error does not name the 408: %v", err)
	case at.Before(expired):
		return r.miss("answered %s before the TIMEOUT expired", dur(expired.Sub(at)))
	case late > time.Second:
		return r.miss("answered %s after browserless's timeout, want within 1s", dur(late))
	}
	return r
}
