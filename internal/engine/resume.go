package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// DroppedCode is the error code a connection that resumes answers a call
// in flight at a drop with (internal/cdpws's Resumer): outside the codes
// Chrome uses.
const DroppedCode = -32099

// drop is the state of a connection that dropped: while it resumes, and
// what the last resume took.
type drop struct {
	n        atomic.Uint64 // drops so far; read without b.mu
	resuming bool          // a drop is being resumed
	reason   string        // the last drop's
	at       time.Time     // when it dropped
	took     time.Duration // what the last resume took
	done     chan struct{} // closed when the resume under way ends, either way
}

// Dropped records that the connection to the browser dropped and that the
// driver's connection is resuming it (a connection that resumes tells
// both): calls wait for the outcome, within their deadline, and the calls
// in flight answer [tabstate.ErrConnectionDropped] once it is resumed, or
// [tabstate.ErrBrowserGone] when it is not ([Browser.Disconnected]).
func (b *Browser) Dropped(reason string) {
	b.mu.Lock()
	if b.gone || b.closed || b.drop.resuming {
		b.mu.Unlock()
		return
	}
	b.drop.n.Add(1)
	b.drop.resuming, b.drop.reason, b.drop.at = true, reason, time.Now()
	b.drop.done = make(chan struct{})
	b.mu.Unlock()
	b.changed(tabtrace.ConnectionDropped, "", "", reason)
}

// Resumed records that the connection dropped last is resumed, after
// took, with every session attached again. Each watched tab learns its
// state again in the background: a tab that navigated during the gap
// reads the new URL; one that crashed or closed was told by its events.
func (b *Browser) Resumed(took time.Duration) {
	b.mu.Lock()
	if !b.drop.resuming {
		b.mu.Unlock()
		return
	}
	b.drop.resuming, b.drop.took = false, took
	close(b.drop.done)
	tabs := b.all()
	b.mu.Unlock()
	b.changed(tabtrace.ConnectionResumed, "", "", "after "+took.Round(time.Millisecond).String())
	for _, t := range tabs {
		t.relearn()
	}
}

// endDrop ends a resume under way because the browser is gone. b.mu must
// be held.
func (b *Browser) endDrop() {
	if b.drop.resuming {
		b.drop.resuming = false
		close(b.drop.done)
	}
}

// resuming reports whether a dropped connection is resuming.
func (b *Browser) resuming() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.drop.resuming
}

// drops is the number of drops so far.
func (b *Browser) drops() uint64 { return b.drop.n.Load() }

// awaitResume waits, while the connection resumes, for the outcome,
// until ctx ends or limit passes (the call's own bound): a call sent
// meanwhile would only wait in the driver. It answers
// ErrConnectionDropped when the resume is still under way then.
func (b *Browser) awaitResume(ctx context.Context, limit time.Duration) error {
	b.mu.RLock()
	resuming, done := b.drop.resuming, b.drop.done
	b.mu.RUnlock()
	if !resuming {
		return nil
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	case <-timer.C:
	}
	return b.droppedError(false)
}

// droppedError is the answer of a call the last drop cut: resumed says
// the connection is resumed.
func (b *Browser) droppedError(resumed bool) error {
	b.mu.RLock()
	reason, at, took := b.drop.reason, b.drop.at, b.drop.took
	b.mu.RUnlock()
	detail := fmt.Sprintf("%s; resumed after %s: the call may be sent again", reason, took.Round(time.Millisecond))
	if !resumed {
		detail = fmt.Sprintf("%s; resuming for %s so far", reason, time.Since(at).Round(time.Millisecond))
	}
	return b.cfg.Advice.Refusal(&tabstate.BlockedError{Reason: tabstate.ErrConnectionDropped, Detail: detail})
}

// droppedDuring is the answer of call, which ended with an error, when
// the connection dropped since it was admitted: the call's reply is lost,
// so it did not answer. nil when no drop came between, or when the browser
// is gone (the refusal then says so).
func (t *Tab) droppedDuring(call *inflight) error {
	n := t.b.drops()
	t.b.mu.RLock()
	resuming, gone := t.b.drop.resuming, t.b.gone
	t.b.mu.RUnlock()
	if n == call.drops || gone {
		return nil
	}
	return t.b.droppedError(!resuming)
}

// relearn learns the tab's state again after a resume, in the background
// within the eval timeout: its URL, whether a document of it is
// committed and loaded. The frames' objects of the earlier session are
// forgotten; the settings sent again report the rest (a crash, the
// execution contexts).
func (t *Tab) relearn() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.forgetFrameObjects()
	t.wg.Add(1)
	t.mu.Unlock()
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.life, t.timeout)
		defer cancel()
		var (
			info targetInfoResult
			hist historyResult
			doc  evaluateResult
		)
		errs := together(
			func() error {
				return t.b.browser.Call(ctx, "Target.getTargetInfo", targetParams{TargetID: t.id}, &info)
			},
			func() error { return t.s.Call(ctx, "Page.getNavigationHistory", nil, &hist) },
			func() error {
				return t.s.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: `document.readyState`, ReturnByValue: true}, &doc)
			},
		)
		if errs[0] != nil || errs[1] != nil {
			return
		}
		url, committed := learnURL(info.TargetInfo.URL, hist)
		t.mu.Lock()
		navigated := committed && t.tab.State().URL != url
		t.mu.Unlock()
		if navigated {
			// A document committed during the gap: its events were lost.
			t.Apply(tabstate.FrameNavigated{FrameID: t.id, URL: url})
		}
		if errs[2] == nil && doc.ExceptionDetails == nil && string(doc.Result.Value) == `"complete"` {
			t.mu.Lock()
			if !t.closed {
				t.tab.LearnLoaded(t.tab.Seq())
				t.broadcast()
			}
			t.mu.Unlock()
		}
	}()
}

// forgetFrameObjects forgets the remote objects by which the Tab reached
// its in-process frames: they were of the session that dropped. t.mu must
// be held.
func (t *Tab) forgetFrameObjects() {
	for id, r := range t.reaches {
		if r.object != "" {
			t.dropReach(id, r)
		}
	}
}
