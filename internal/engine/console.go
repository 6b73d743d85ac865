package engine

import (
	"context"

	"github.com/tabguard/tabguard/tabstate"
)

// The bounds of what a tab keeps of its console: a chatty page costs the
// program no more than this, whatever it logs. Each message's text is cut
// at 1 KiB (tabstate.ConsoleMessage).
const (
	// maxConsoleMessages is the most messages a tab keeps.
	maxConsoleMessages = 200
	// maxConsoleBytes is the most bytes of text and URLs it keeps.
	maxConsoleBytes = 64 << 10
	// consoleContext is how many of the last messages a timeout or a
	// refusal carries.
	consoleContext = 5
)

// consoleLog is a tab's last console messages since its main frame last
// committed a document, oldest first, within maxConsoleMessages and
// maxConsoleBytes: the oldest go first, counted in dropped. Its owner
// holds t.mu.
type consoleLog struct {
	msgs    []tabstate.ConsoleMessage
	bytes   int
	dropped int
}

// add keeps m, dropping the oldest messages it has no room for.
func (c *consoleLog) add(m tabstate.ConsoleMessage) {
	size := consoleSize(m)
	for len(c.msgs) > 0 && (len(c.msgs) >= maxConsoleMessages || c.bytes+size > maxConsoleBytes) {
		c.bytes -= consoleSize(c.msgs[0])
		c.msgs[0] = tabstate.ConsoleMessage{} // let its strings go
		c.msgs = c.msgs[1:]
		c.dropped++
	}
	c.msgs = append(c.msgs, m)
	c.bytes += size
}

// clear forgets everything: a new document has a console of its own.
func (c *consoleLog) clear() { *c = consoleLog{} }

// tail is a copy of the last n messages, or nil when there are none.
func (c *consoleLog) tail(n int) []tabstate.ConsoleMessage {
	if len(c.msgs) == 0 {
		return nil
	}
	return append([]tabstate.ConsoleMessage(nil), c.msgs[max(0, len(c.msgs)-n):]...)
}

// consoleSize is what m counts against maxConsoleBytes.
func consoleSize(m tabstate.ConsoleMessage) int { return len(m.Text) + len(m.URL) }

// consoleEvent keeps the message of a console call or an uncaught
// exception, and forgets them all when the main frame commits a document.
// It reports whether ev was a console event, which changes nothing else.
// t.mu must be held.
func (t *Tab) consoleEvent(ev tabstate.Event) bool {
	switch e := ev.(type) {
	case tabstate.ConsoleAPICalled:
		t.console.add(e.Message())
	case tabstate.ExceptionThrown:
		t.console.add(e.Message())
	case tabstate.FrameNavigated:
		if e.ParentID == "" {
			t.console.clear()
		}
		return false
	default:
		return false
	}
	return true
}

// Console returns the tab's console messages and uncaught exceptions
// since its main frame last committed a document, oldest first: at most
// 200 messages and 64 KiB of their text, with how many older ones were
// dropped. It makes no CDP call; the messages come from the Runtime
// domain's events, which the driver or Config.Console enables.
func (t *Tab) Console() tabstate.ConsoleLog {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tabstate.ConsoleLog{Messages: t.console.tail(maxConsoleMessages), Dropped: t.console.dropped}
}

// consoleTail is the last messages a timeout carries.
func (t *Tab) consoleTail() []tabstate.ConsoleMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.console.tail(consoleContext)
}

// withConsole gives err, when it is a refusal, the last messages of the
// console. t.mu must be held.
func (t *Tab) withConsole(err error) error {
	if be, ok := err.(*tabstate.BlockedError); ok && be.Console == nil {
		be.Console = t.console.tail(consoleContext)
	}
	return err
}

// enableConsole enables the Runtime domain, whose events carry the
// console, when Config.Console asks; Chrome holds the call while the
// renderer is busy, crashed or in its first load. Chrome answers it after
// it has sent again what the document logged so far, in a burst that a
// driver whose replies overtake its events takes a while to push in: the
// start waits for it (sync), so that Console after Watch has it.
func (t *Tab) enableConsole(ctx context.Context) error {
	if !t.b.cfg.Console {
		return nil
	}
	if err := t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, "Runtime.enable", nil, nil) }); err != nil {
		return err
	}
	_ = t.b.sync(ctx) // the messages come anyway; Watch then just knows fewer
	return nil
}

// enableConsoleLater is enableConsole once the renderer answers, as
// enableNetworkLater is. t.mu must be held and t not closed.
func (t *Tab) enableConsoleLater() {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		_ = t.s.Call(t.life, "Runtime.enable", nil, nil)
	}()
}
