package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// opRecover names Recover in its errors.
const opRecover = "recover"

// stall is the answer of the last call that ran out of time on a page
// busy in a script, hung, or held by a navigation that has not committed,
// noted while no call has answered since and
// nothing navigated: Recover acts on it without asking the page again, and
// gives it as the Recovery's Problem.
type stall struct {
	timeout *tabstate.TimeoutError // the call's answer
	seq     uint64                 // the tab's navigation news when it was found
}

// noteStall remembers what a call that ran out of time found.
func (t *Tab) noteStall(te *tabstate.TimeoutError) {
	t.mu.Lock()
	t.stall = stall{timeout: te, seq: t.tab.Seq()}
	t.mu.Unlock()
	t.stalled.Store(true)
}

// answered forgets the stall once a call on the page answered.
func (t *Tab) answered() {
	if t.stalled.Load() && t.stalled.Swap(false) { // a load alone on the healthy path
		t.mu.Lock()
		t.stall = stall{}
		t.mu.Unlock()
	}
}

// Recover brings the tab back from whatever keeps it from answering, and
// says what it found and did:
//   - a JavaScript dialog: dismissed (Page.handleJavaScriptDialog);
//   - a crash, or no document (a load that failed, a prompt that stopped
//     it): reloaded;
//   - a script that holds the main thread: stopped
//     (Runtime.terminateExecution), keeping the page;
//   - a renderer that answers nothing, not even an interrupt: crashed
//     (Page.crash, whose answer never comes: the crash events say it
//     worked) and reloaded with Page.reload, which keeps the tab's history,
//     sessionStorage and cookies (measured on Chromium 156, docs/captures.md);
//   - a main-frame navigation that has not committed, which holds the
//     page's calls: stopped (Page.stopLoading, which the browser process
//     answers), keeping the page it would have replaced; Recover returns
//     once the tab's events say the navigation was abandoned.
//
// When the last call that ran out of time found the script busy, the
// renderer hung or a navigation holding the page, and nothing answered or
// navigated since, Recover acts on that at once: a timeout names those
// causes only when its probes proved them. Otherwise it asks the page (an
// evaluate and an interrupt, at once) to tell a busy script (the interrupt
// answers) from a hung renderer (nothing but the browser answers for the
// probe window: the patience, or three of the link's round trips if
// longer), and either from a page held by a navigation under way (the
// evaluate does not answer within the event grace, the browser does). When ctx ends before it can
// tell, Recover does nothing and answers a [*tabstate.TimeoutError] saying
// what answered. Each step is
// bounded by ctx and the eval timeout. A tab that is closed, discarded or
// in a lost browser cannot be brought back here: its refusal is returned,
// as an error and as the Recovery's Problem. An error says the step taken
// failed; the Recovery still says what was found and tried.
func (t *Tab) Recover(ctx context.Context) (tabstate.Recovery, error) {
	if !t.tracing(ctx) {
		return t.recover(ctx)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpRecover)
	r, err := t.recover(ctx)
	t.callDone(ctx, rec, err)
	return r, err
}

// recover is Recover.
func (t *Tab) recover(ctx context.Context) (tabstate.Recovery, error) {
	if ctx == nil {
		return tabstate.Recovery{}, fmt.Errorf("%w: nil context", tabstate.ErrInvalidArgument)
	}
	if err := t.Blocked(ctx); err != nil {
		return t.recoverFrom(ctx, err)
	}
	t.mu.Lock()
	committed, st := t.tab.State().Committed, t.stall
	if st.seq != t.tab.Seq() {
		st = stall{}
	}
	t.mu.Unlock()
	if !committed {
		// Still loading its first document: nothing refuses it yet.
		return tabstate.Recovery{Action: tabstate.RecoveredNothing}, nil
	}
	problem := st.timeout
	if problem == nil {
		start := time.Now()
		cause, p, err := t.askPage(ctx)
		limit := time.Since(start).Round(time.Millisecond)
		switch {
		case isRefusal(err):
			return t.recoverFrom(ctx, err)
		case errors.Is(err, errUnproven):
			// Too little time to tell: nothing is done on a guess.
			te := t.b.cfg.Advice.Words(&tabstate.TimeoutError{Op: opRecover, Limit: limit, Doing: unproven(p, t.State().URL, "evaluate"),
				Advice: t.b.cfg.advice(tabstate.TimeoutUnknown)})
			return tabstate.Recovery{Problem: te}, te
		case err != nil:
			return tabstate.Recovery{}, err
		}
		// The page's answer to Recover's own eval, which awaits nothing.
		problem = &tabstate.TimeoutError{Limit: limit, Cause: cause, Doing: cause.Describe(t.State().URL)}
	}
	cause := problem.Cause
	if cause != tabstate.TimeoutUnknown && ctx.Err() != nil {
		// Found, but the caller's deadline left no time to act.
		return tabstate.Recovery{Problem: problem}, expired(ctx, opRecover)
	}
	switch cause {
	case tabstate.TimeoutBusyScript:
		return tabstate.Recovery{Problem: problem, Action: tabstate.TerminatedScript}, t.terminate(ctx)
	case tabstate.TimeoutHung:
		return t.recoverHung(ctx, problem)
	case tabstate.TimeoutNavigating:
		return t.stopNavigation(ctx, problem)
	case tabstate.TimeoutSilent:
		return tabstate.Recovery{Problem: problem}, problem
	}
	return tabstate.Recovery{Action: tabstate.RecoveredNothing}, nil
}

// recoverFrom acts on refused, the tab's refusal.
func (t *Tab) recoverFrom(ctx context.Context, refused error) (tabstate.Recovery, error) {
	r := tabstate.Recovery{Problem: refused}
	be, ok := refused.(*tabstate.BlockedError)
	if !ok {
		return r, refused // the watcher is closed, or ctx ended
	}
	switch {
	case be.Reason == tabstate.ErrDialogOpen:
		r.Action = tabstate.DismissedDialog
		if err := t.handleDialog(ctx, false, ""); err != nil && !errors.Is(err, tabstate.ErrNoDialog) {
			return r, err
		}
		return r, nil
	case be.Reason == tabstate.ErrTabCrashed, errors.Is(be, tabstate.ErrNoDocument), be.Reason == tabstate.ErrSignInRequired,
		be.Reason == tabstate.ErrCredentialsRefused, be.Reason == tabstate.ErrCertificate, be.Reason == tabstate.ErrClientCertificate:
		r.Action = tabstate.Reloaded
		return r, t.reload(ctx)
	}
	return r, refused
}

// errUnproven marks a finding of askPage that its time did not prove.
var errUnproven = errors.New("not proven")

// askPage tells, within ctx and the eval timeout (or the time a proof
// takes, if longer), whether the page
// answers (TimeoutUnknown), a script holds its main thread (the interrupt
// answers, the evaluate does not), a navigation under way holds it (the
// browser answers, the evaluate does not), the renderer hangs (only the
// browser answers) or nothing answers at all (TimeoutSilent). The
// evaluate gets the event grace, after the interrupt's or the browser's
// answer, to answer as on a healthy page it does. A hang or a silence
// is named once nothing else has answered for the probe window
// (Browser.patience, the patience or three of the link's round trips):
// then it is proven. When ctx leaves less, the finding is errUnproven,
// with what the probes found. Another error is the tab's refusal, met
// meanwhile, or ctx's end.
func (t *Tab) askPage(ctx context.Context) (tabstate.TimeoutCause, tabstate.Probes, error) {
	// The eval timeout, or the time a proof takes if longer: a hung
	// renderer is never left for want of it.
	pctx, cancel := context.WithTimeout(ctx, max(t.timeout, 2*t.b.patience()))
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	evaluate, interrupt, browser := make(chan error, 1), make(chan error, 1), make(chan error, 1)
	ask := func(answer chan<- error, call func(ctx context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answer <- call(pctx)
		}()
	}
	onPage := func(method string, params any) func(context.Context) error {
		return func(ctx context.Context) error {
			return t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, method, params, nil) })
		}
	}
	start := time.Now()
	ask(evaluate, onPage("Runtime.evaluate", evaluateParams{Expression: "1", ReturnByValue: true}))
	ask(interrupt, onPage("Performance.getMetrics", nil))
	ask(browser, func(ctx context.Context) error { return t.b.browserCall(ctx, "Browser.getVersion", nil, nil) })

	late := context.DeadlineExceeded
	p := tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Browser: late, Due: t.b.patience()}
	proof := time.NewTimer(p.Due)
	defer proof.Stop()
	var (
		grace      <-chan time.Time
		graceTimer *time.Timer
	)
	defer func() {
		if graceTimer != nil {
			graceTimer.Stop()
		}
	}()
	await := func() {
		if graceTimer == nil {
			graceTimer = time.NewTimer(t.b.cfg.grace())
			grace = graceTimer.C
		}
	}
	for {
		select {
		case err := <-evaluate:
			switch {
			case err == nil:
				return tabstate.TimeoutUnknown, p, nil
			case isRefusal(err), errors.Is(err, tabstate.ErrWatcherClosed):
				return tabstate.TimeoutUnknown, p, err
			case !ctxError(err):
				return tabstate.TimeoutUnknown, p, nil // Chrome answered, if with an error
			}
		case err := <-interrupt:
			if err == nil {
				// The renderer takes interrupts.
				p.Interrupt = nil
				await()
			}
		case err := <-browser:
			if err == nil {
				// Its round trip is one of the link's now, which
				// may lengthen the window.
				p.Browser, p.Due = nil, t.b.patience()
				proof.Reset(max(p.Due-time.Since(start), 0))
				if navigating, _ := t.navigation(); navigating {
					await()
				}
			}
		case <-grace:
			if cause, ok := t.held(&p); ok {
				return cause, p, nil
			}
			// The navigation ended, and the interrupt has not answered:
			// the proof tells.
			grace = nil
			proof.Reset(max(p.Due-time.Since(start), 0))
		case <-proof.C:
			if grace == nil {
				p.Window = time.Since(start)
				p.Navigating, p.NavigationURL = t.navigation()
				cause, _ := tabstate.Diagnose(p)
				return cause, p, nil
			}
		case <-pctx.Done():
			p.Window = time.Since(start)
			switch {
			case errors.Is(ctx.Err(), context.Canceled):
				return tabstate.TimeoutUnknown, p, ctx.Err()
			case t.refused() != nil:
				return tabstate.TimeoutUnknown, p, t.refused()
			}
			if cause, ok := t.held(&p); ok {
				return cause, p, nil
			}
			return tabstate.TimeoutUnknown, p, errUnproven
		}
	}
}

// held is the finding on a page whose evaluate has not answered, once
// the evaluate had its grace: a navigation under way holds it (the browser
// answered), or a script does (the interrupt answered). ok is false when
// neither answered, and only the proof can tell.
func (t *Tab) held(p *tabstate.Probes) (cause tabstate.TimeoutCause, ok bool) {
	p.Navigating, p.NavigationURL = t.navigation()
	cause, _ = tabstate.Diagnose(*p)
	return cause, cause == tabstate.TimeoutNavigating || p.Interrupt == nil
}

// terminate stops the script that holds the page's main thread, within
// ctx and the eval timeout: Chrome interrupts the script to do it.
func (t *Tab) terminate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	if err := t.terminateWithin(ctx); err != nil {
		return fmt.Errorf("recover: stop the script (Runtime.terminateExecution): %w", t.settleErr(ctx, err))
	}
	t.answered()
	return nil
}

// stopNavigation stops the main-frame navigation that has not committed
// and holds the page's calls, with Page.stopLoading, which the browser
// process answers, and waits, within ctx and the eval timeout, for the
// tab's events to say it was abandoned (Page.frameStoppedLoading, or the
// document request's Network.loadingFailed, canceled): the page it would
// have replaced then answers, and so does the next call.
func (t *Tab) stopNavigation(ctx context.Context, problem *tabstate.TimeoutError) (tabstate.Recovery, error) {
	r := tabstate.Recovery{Problem: problem, Action: tabstate.StoppedNavigation}
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	err := t.doBrowserSide(sctx, opRecover, func(ctx context.Context) error { return t.s.Call(ctx, "Page.stopLoading", nil, nil) })
	if err != nil {
		return r, fmt.Errorf("recover: stop the navigation (Page.stopLoading): %w", err)
	}
	if !t.await(sctx, t.timeout, func() bool { return !t.tab.Navigating() || t.closed }) {
		if err := expired(ctx, opRecover); err != nil {
			return r, err
		}
		_, url := t.navigation()
		return r, t.b.cfg.Advice.Words(&tabstate.TimeoutError{Op: opRecover, Limit: t.timeout, Cause: tabstate.TimeoutNavigating,
			Doing:  "navigation to " + tabstate.ShownURL(url) + " did not stop when told to (Page.stopLoading)",
			Advice: "close the tab with Watcher.CloseTab and open a new one"})
	}
	if err := t.refused(); err != nil {
		return r, err
	}
	t.answered()
	return r, nil
}

// recoverHung brings back a renderer that answers nothing: a dialog that
// opened before the watcher did is dismissed (the browser process answers
// that); otherwise the renderer is crashed and the tab reloaded.
func (t *Tab) recoverHung(ctx context.Context, problem *tabstate.TimeoutError) (tabstate.Recovery, error) {
	r := tabstate.Recovery{Problem: problem, Action: tabstate.DismissedDialog}
	switch err := t.handleDialog(ctx, false, ""); {
	case err == nil:
		t.answered()
		return r, nil
	case !errors.Is(err, tabstate.ErrNoDialog):
		return r, err
	}
	r.Action = tabstate.CrashedAndReloaded
	if err := t.crash(ctx); err != nil {
		return r, err
	}
	t.answered()
	return r, t.load(ctx, "reload", func(ctx context.Context) (string, bool, error) {
		return "", false, t.s.Call(ctx, "Page.reload", nil, nil)
	})
}

// crash ends the tab's renderer with Page.crash and waits, within ctx and
// the eval timeout, for the crash events. Chrome never answers Page.crash:
// the renderer that would answer it dies.
func (t *Tab) crash(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		_ = t.s.Call(cctx, "Page.crash", nil, nil)
	}()
	crashed := t.await(cctx, t.timeout, func() bool { return t.tab.State().Crashed || t.closed })
	cancel()
	<-sent
	if crashed {
		return t.refusedUnlessCrashed()
	}
	if err := expired(ctx, opRecover); err != nil {
		return err
	}
	return t.b.cfg.Advice.Words(&tabstate.TimeoutError{Op: opRecover, Limit: t.timeout, Cause: tabstate.TimeoutHung,
		Doing:  "the renderer did not crash when told to (Page.crash)",
		Advice: "close the tab with Watcher.CloseTab and open a new one"})
}

// refusedUnlessCrashed is the tab's refusal, unless it is the crash that
// Recover made.
func (t *Tab) refusedUnlessCrashed() error {
	err := t.refused()
	if err == nil || errors.Is(err, tabstate.ErrTabCrashed) {
		return nil
	}
	return err
}

// settleErr is err, the error of a step that ctx bounded, in the tab's
// terms.
func (t *Tab) settleErr(ctx context.Context, err error) error {
	if ctxError(err) {
		if e := expired(ctx, opRecover); e != nil {
			return e
		}
		if r := t.refused(); r != nil {
			return r
		}
	}
	return t.classify(err)
}
