package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// crashRow crashes the tab's renderer (Page.crash, from rod's page of the
// tab) and times how soon the watcher knows; the next eval must be
// refused with ErrTabCrashed.
func crashRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: "renderer crash (`proto.PageCrash{}` with a 300 ms context, on rod's page of the tab), then an eval"}
	s, err := openSession(ctx, p, pageURL, &tabguard.Options{EvalTimeout: 10 * time.Second})
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	start := time.Now()
	crashed := make(chan struct{})
	go func() {
		defer close(crashed)
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_ = proto.PageCrash{}.Call(s.page.Context(cctx)) // the renderer dies before it answers
	}()
	defer func() { <-crashed }()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := s.w.Wait(wctx, func(st tabguard.TabState) bool { return st.Crashed }); err != nil {
		return r.miss("Wait for the crash: %v", err)
	}
	knew := time.Since(start)
	_, eerr := s.w.Eval(wctx, "() => 1")
	r.returned = code(eerr)
	r.took = fmt.Sprintf("the watcher knew %s after the crash call", dur(knew))
	if !errors.Is(eerr, tabguard.ErrTabCrashed) {
		return r.miss("got %v, want ErrTabCrashed", eerr)
	}
	return r
}

// dialogRow lets the page open an alert: an eval must be refused with
// ErrDialogOpen, and after HandleDialog the next eval must answer.
func dialogRow(ctx context.Context, p *pool, pageURL string) row {
	r := row{name: "dialog (the page calls `alert`): an eval, `Watcher.HandleDialog`, the next eval"}
	s, err := openSession(ctx, p, pageURL, &tabguard.Options{EvalTimeout: 5 * time.Second})
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := s.w.Eval(dctx, `() => { setTimeout(() => alert("from the pool"), 0); return 1 }`); err != nil {
		return r.miss("schedule the alert: %v", err)
	}
	if _, err := s.w.Wait(dctx, func(st tabguard.TabState) bool { return st.DialogOpen }); err != nil {
		return r.miss("Wait for the dialog: %v", err)
	}
	start := time.Now()
	_, eerr := s.w.Eval(dctx, "() => 1")
	refused := time.Since(start)
	if !errors.Is(eerr, tabguard.ErrDialogOpen) {
		r.returned = code(eerr)
		return r.miss("got %v, want ErrDialogOpen", eerr)
	}
	start = time.Now()
	herr := s.w.HandleDialog(dctx, true, "")
	handled := time.Since(start)
	start = time.Now()
	res, nerr := s.w.Eval(dctx, "() => 2")
	next := time.Since(start)
	r.took = fmt.Sprintf("refused in %s; `HandleDialog` %s; the next eval %s", dur(refused), dur(handled), dur(next))
	switch {
	case herr != nil:
		r.returned = code(eerr)
		return r.miss("HandleDialog: %v", herr)
	case nerr != nil:
		r.returned = code(eerr)
		return r.miss("the eval after HandleDialog: %v", nerr)
	}
	r.returned = code(eerr) + fmt.Sprintf("; after `HandleDialog`, the next eval answered %v", res.Value)
	if res.Value.Int() != 2 {
		return r.miss("the eval after HandleDialog answered %v, want 2", res.Value)
	}
	return r
}

// runawayRow runs a script that never yields under Options.TerminateOnTimeout
// with a 1 s EvalTimeout: the eval must time out saying the script was
// terminated, and the next eval must answer.
func runawayRow(ctx context.Context, p *pool, pageURL string) row {
	const timeout = time.Second
	r := row{name: "runaway script `() => { while (true) {} }` with `Options.TerminateOnTimeout` and `EvalTimeout` 1s, then the next eval"}
	s, err := openSession(ctx, p, pageURL, &tabguard.Options{EvalTimeout: timeout, TerminateOnTimeout: true})
	if err != nil {
		return r.miss("%v", err)
	}
	defer s.close()
	// A context with no deadline, ended after 15 s or with ctx: a call
	// whose context has a deadline is bounded by it, not by EvalTimeout.
	ectx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	stop := time.AfterFunc(15*time.Second, cancel)
	defer stop.Stop()
	start := time.Now()
	_, eerr := s.w.Eval(ectx, `() => { while (true) {} }`)
	timedOut := time.Since(start)
	start = time.Now()
	res, nerr := s.w.Eval(ectx, "() => 3")
	next := time.Since(start)
	r.returned = code(eerr)
	r.took = fmt.Sprintf("%s; the next eval %s", dur(timedOut), dur(next))
	switch {
	case !errors.Is(eerr, tabguard.ErrEvalTimeout):
		return r.miss("got %v, want ErrEvalTimeout", eerr)
	case !strings.Contains(eerr.Error(), "terminat"):
		return r.miss("the error does not say the script was terminated: %v", eerr)
	case timedOut > timeout+time.Second:
		return r.miss("the timeout took %s, want within 1s of its %s", dur(timedOut), dur(timeout))
	case nerr != nil:
		return r.miss("the next eval: %v", nerr)
	}
	r.returned += fmt.Sprintf("; the next eval answered %v", res.Value)
	if res.Value.Int() != 3 {
		return r.miss("the next eval answered %v, want 3", res.Value)
	}
	return r
}
