package main

import (
	"context"
	"errors"
	"time"

	"github.com/tabguard/tabguard"
)

// killedRow kills browserless and its Chromium (SIGKILL) with an eval in
// flight: the connection drops, and the resume, given 1 s, dials a port
// nothing listens on; the eval must end with ErrBrowserGone once it
// gives up.
func killedRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: "pool killed (SIGKILL to browserless, then to its Chromium) with an eval in flight, `ConnectOptions.Resume` 1s"}
	s, err := openSessionWith(ctx, p, pageURL, &tabguard.Options{EvalTimeout: time.Minute}, &tabguard.ConnectOptions{Resume: time.Second})
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	done := s.evalAsync(ectx, neverSettles)
	time.Sleep(300 * time.Millisecond) // let it reach the page
	select {
	case a := <-done:
		return r.miss("the eval answered before the kill: %v", a.err)
	default:
	}
	start := time.Now()
	p.kill()
	a, err := await(done, 15*time.Second)
	if err != nil {
		return r.miss("the eval in flight: %v", err)
	}
	took := a.at.Sub(start)
	r.returned = code(a.err)
	r.took = dur(took) + " after the SIGKILL"
	switch {
	case !errors.Is(a.err, tabguard.ErrBrowserGone):
		return r.miss("got %v, want ErrBrowserGone", a.err)
	case took > 3*time.Second:
		return r.miss("answered %s after the kill, want within the resume's 1s and its last dial", dur(took))
	}
	return r
}
