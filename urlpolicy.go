package tabguard

import "github.com/tabguard/tabguard/tabstate"

// ErrURLBlocked reports a navigation that Options.URLs does not allow.
var ErrURLBlocked = tabstate.ErrURLBlocked

// URLPolicy says which URLs [Watcher.Navigate] and [BrowserWatcher.Open]
// may load; see [tabstate.URLPolicy]. The zero value allows http and https
// URLs, and about:blank, and nothing else.
type URLPolicy = tabstate.URLPolicy
