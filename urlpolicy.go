package tabguard

import "github.com/tabguard/tabguard/tabstate"

// ErrURLBlocked reports a navigation that Options.URLs does not allow.
var ErrURLBlocked = tabstate.ErrURLBlocked

// URLPolicy says which URLs [Watcher.Navigate] and [BrowserWatcher.Open]
// may load; see [tabstate.URLPolicy]. The zero value allows http and https
// URLs, and about:blank, and nothing else.
type URLPolicy = tabstate.URLPolicy

// Advice words the remedies a watcher's errors name, in a program's own
// terms (Options.Advice); see [tabstate.Advice]. For an MCP server:
//
//	&tabguard.Advice{Refused: map[error]string{tabguard.ErrTabCrashed: "call reload_tab"}}
type Advice = tabstate.Advice

// FileChooser is a file chooser a page opened, as Options.FileChooser
// sees it; see [tabstate.FileChooser].
type FileChooser = tabstate.FileChooser
