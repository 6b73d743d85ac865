package engine

import (
	"context"
	"time"
)

// window.print(). Measured on Chromium 156: headless, print() returns at
// once and nothing is shown; headed, it opens the print preview, and the
// call whose script ran print() gets no answer while the preview is open
// (a real click that runs it too). Nothing over CDP closes the preview but
// navigating the tab away, and a tab closed meanwhile may leave that call
// unanswered for good. Replacing window.print before the page runs keeps
// the preview from opening in both modes: Watch adds a script that Chrome
// runs in every new document of the tab, before the page's own scripts
// (Page.addScriptToEvaluateOnNewDocument), and at once in the documents the
// tab holds already (runImmediately), its same-process iframes included.
// A call that runs in the page goes after that script's answer
// (awaitPrint), as Watch need not wait for it.
//
// What a page can observe: print is a plain function that does nothing
// ("print(){}" as a string, where Chrome's own reads "function print() {
// [native code] }"); a page watched after it loaded may have kept a
// reference to the original. The script adds no global name. An
// out-of-process iframe (a site-isolated browser) keeps its own print,
// whose preview the program sees as any other.
//
// Prevented prints are not reported: nothing is left to do about them,
// and telling of one would need a channel the page can see (a binding, a
// console message) and another CDP domain enabled on every tab.

// noPrint is the script that replaces window.print with a function that
// does nothing. A method keeps what a page might test of the original:
// its name, "print", and that it is no constructor.
const noPrint = `window.print={print(){}}.print`

// addScriptParams is Page.addScriptToEvaluateOnNewDocument's.
type addScriptParams struct {
	Source         string `json:"source"`
	RunImmediately bool   `json:"runImmediately"`
}

// scriptIdentifier is Page.addScriptToEvaluateOnNewDocument's result, and
// Page.removeScriptToEvaluateOnNewDocument's params.
type scriptIdentifier struct {
	Identifier string `json:"identifier"`
}

// preventPrint adds noPrint to the tab's documents, new and current, and
// keeps the script's identifier for release, which removes it: a tab
// watched again and again carries one copy at most.
func (t *Tab) preventPrint(ctx context.Context) error {
	var res scriptIdentifier
	err := t.s.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", addScriptParams{Source: noPrint, RunImmediately: true}, &res)
	if err == nil {
		t.mu.Lock()
		t.printScript = res.Identifier
		t.mu.Unlock()
	}
	return err
}

// preventPrintLater is preventPrint once the renderer answers, as
// enableNetworkLater is; done is the print call's, of printing, which its
// answer closes. t.mu must be held and t not closed.
func (t *Tab) preventPrintLater(done chan struct{}) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer t.printed(done)
		_ = t.preventPrint(t.life)
	}()
}

// printing notes that the tab's print call is on its way: until printed,
// a call that runs in the page waits for its answer (awaitPrint). t.mu
// must be held.
func (t *Tab) printing() chan struct{} {
	done := make(chan struct{})
	t.printDone = done
	return done
}

// printed notes that the print call of printing's done has answered, or
// failed for good.
func (t *Tab) printed(done chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.printedLocked(done)
}

// printedLocked is printed with t.mu held.
func (t *Tab) printedLocked(done chan struct{}) {
	close(done)
	if t.printDone == done {
		t.printDone = nil
	}
}

// awaitPrint holds a call that runs in the page, admitted while the
// tab's print call was on its way (call.print), until that call answers,
// for up to the event grace or until ctx ends. Watch does not wait for the
// renderer on a tab whose document is being replaced, so the first call
// after it may be sent before the print call: Chrome runs a tab's
// commands in order, so one sent after the answer runs where print is
// replaced. A renderer that holds the print call (a busy script) would
// hold the page call as long: the grace keeps a program's call that needs
// no renderer from waiting on it.
func (t *Tab) awaitPrint(ctx context.Context, call *inflight) {
	if call.print == nil {
		return
	}
	timer := time.NewTimer(t.b.cfg.grace())
	defer timer.Stop()
	select {
	case <-call.print:
	case <-timer.C:
	case <-ctx.Done():
	}
}
