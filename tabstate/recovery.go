package tabstate

// RecoveryAction is what a watcher's Recover did to bring its tab back.
type RecoveryAction string

// What Recover may do, one per problem it finds.
const (
	// RecoveredNothing: the tab answered; Recover changed nothing.
	RecoveredNothing RecoveryAction = "nothing"
	// DismissedDialog: a JavaScript dialog held the tab, and was dismissed.
	DismissedDialog RecoveryAction = "dismissed the dialog"
	// Reloaded: the tab had crashed, or had no document (a load that
	// failed, a prompt that stopped it), and was reloaded.
	Reloaded RecoveryAction = "reloaded"
	// TerminatedScript: a script held the page's main thread, and was
	// stopped (Runtime.terminateExecution); the page is kept as it is.
	TerminatedScript RecoveryAction = "terminated the script"
	// CrashedAndReloaded: the renderer answered nothing, not even an
	// interrupt, so it was crashed (Page.crash) and the tab reloaded, which
	// keeps its history, its sessionStorage and its cookies.
	CrashedAndReloaded RecoveryAction = "crashed the hung renderer and reloaded"
	// StoppedNavigation: a main-frame navigation that had not committed held
	// the page's calls, and was stopped (Page.stopLoading); the page it
	// would have replaced is kept as it is.
	StoppedNavigation RecoveryAction = "stopped the pending navigation"
)

// Recovery is what a watcher's Recover found and did, for a program or an
// agent to log.
type Recovery struct {
	// Problem is what kept the tab from answering: the refusal a call
	// would have had (a [*BlockedError]), or for a page that answered
	// nothing, a [*TimeoutError] whose Cause says why. It is nil when the
	// tab answered.
	Problem error
	// Action is what Recover did about it.
	Action RecoveryAction
}

// String reads like "tab renderer crashed (reason: oom): reloaded",
// "busy running script on committed page URL: terminated the script", or
// "tab answered: nothing".
func (r Recovery) String() string {
	if r.Problem == nil {
		return "tab answered: " + string(r.Action)
	}
	if te, ok := r.Problem.(*TimeoutError); ok && te.Doing != "" {
		return te.Doing + ": " + string(r.Action)
	}
	if p, ok := r.Problem.(interface{ Problem() string }); ok {
		return p.Problem() + ": " + string(r.Action)
	}
	return r.Problem.Error() + ": " + string(r.Action)
}
