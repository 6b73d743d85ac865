package engine

import "context"

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
// enableNetworkLater is. t.mu must be held and t not closed.
func (t *Tab) preventPrintLater() {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		_ = t.preventPrint(t.life)
	}()
}
