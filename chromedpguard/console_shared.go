package chromedpguard

import "github.com/tabguard/tabguard/tabstate"

// ConsoleMessage is one line of a tab's console: a console call of the
// page, or an exception no script caught ("exception").
type ConsoleMessage = tabstate.ConsoleMessage

// ConsoleLog is what a tab keeps of its console: its last messages,
// oldest first, and how many older ones it dropped.
type ConsoleLog = tabstate.ConsoleLog

// Console returns the tab's console messages and uncaught exceptions since
// its main frame last committed a document, oldest first, as DevTools
// prints them. The tab keeps the last 200 messages and 64 KiB of their
// text, each text cut at 1 KiB; Dropped counts the older ones it let go.
// A new document starts an empty log; a same-document navigation does not.
// A [*TimeoutError] and a [*BlockedError] carry the last five messages in
// their Console field.
//
// Console makes no CDP call: the messages are the Runtime domain's events
// on the tab's session, which the watcher keeps as they come, so those of
// a call that just answered may follow its answer by a moment. Where
// Options has a Console field, the watcher enables that domain only when
// it is set, and Watch returns with what the document logged before it;
// otherwise the driver enables it on every tab. Iframes that run in a
// process of their own log to consoles of their own, not kept here.
func (w *Watcher) Console() ConsoleLog { return w.t.Console() }
