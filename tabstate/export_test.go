package tabstate

// CloneTab returns a copy of t that events applied to either leave the
// other alone: Tab.commit writes through t.nav.
func CloneTab(t *Tab) *Tab {
	c := *t
	if t.nav != nil {
		n := *t.nav
		c.nav = &n
	}
	return &c
}

// tabKey is what decides the phases a Tab moves through from now on.
type tabKey struct {
	state                State
	mainFrame, committed string
	nav                  bool
	navLoader            string
	before               State
}

// TabKey returns a comparable value equal for two tabs that any sequence of
// events moves through the same phases. It leaves out the counters, which
// only grow, the words that only describe (a crash's status, a dialog's
// text), which no rule of the machine reads, and the lifecycle milestones,
// which no phase depends on.
func TabKey(t *Tab) any {
	s := t.state
	s.Milestones = 0
	s.CrashReason, s.GoneReason, s.ReplacedBy = "", "", ""
	s.DialogType, s.DialogMessage, s.PauseReason = "", "", ""
	if s.LoadError != "" {
		s.LoadError = "error"
	}
	k := tabKey{state: s, mainFrame: t.MainFrame, committed: t.committed, nav: t.nav != nil}
	if t.nav != nil {
		// abandoned gives back only these facts of what a navigation replaced.
		b := t.nav.before
		k.navLoader = t.nav.loader
		k.before = State{URL: b.URL, Committed: b.Committed, Loaded: b.Loaded, LoadError: b.LoadError, ErrorPage: b.ErrorPage}
		if k.before.LoadError != "" {
			k.before.LoadError = "error"
		}
	}
	return k
}

// MilestoneOf is milestoneOf: the Milestone of a lifecycle event's name.
var MilestoneOf = milestoneOf
