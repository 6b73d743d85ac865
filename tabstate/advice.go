package tabstate

// Advice words the remedies a watcher's errors name, in a program's own
// terms, for errors that reach people or agents who call something else
// than the Go API: an MCP server's tools, an HTTP service's endpoints. A
// watcher's errors name its own Go calls by default ("reload the tab
// (Watcher.Reload)"); with Advice, the same errors read "tab renderer
// crashed (reason: oom): call reload_tab". A reason or cause the maps
// leave out keeps the default advice.
type Advice struct {
	// Refused is the remedy of a refusal by its Reason: ErrTabCrashed,
	// ErrNoDocument, ErrDialogOpen, ... A load stopped at a prompt
	// (ErrSignInRequired, ErrCertificate, ErrClientCertificate) it leaves
	// out takes ErrNoDocument's.
	Refused map[error]string
	// TimedOut is the remedy of a timeout by its Cause: TimeoutHung,
	// TimeoutBusyScript, ...
	TimedOut map[TimeoutCause]string
	// FrameRefused is the remedy of a refusal of an iframe (one whose
	// BlockedError.Frame is set) by its Reason. A Reason it leaves out
	// takes Refused's remedy, but for ErrNoDocument: a tab's is to
	// navigate, which brings no iframe back, so the default advice stays.
	FrameRefused map[error]string
	// FrameLoading is the remedy of a call that timed out waiting for an
	// iframe's first document (TimeoutError.Frame set) whose server never
	// answered, and FrameLazy of one whose load never started: a lazy
	// iframe out of view, or one never given a page. Empty keeps the
	// default advice.
	FrameLoading, FrameLazy string
	// Word, when set, words the advice of every refusal ([*BlockedError])
	// and every timeout ([*TimeoutError]) a watcher gives, after the maps
	// above: it gets the error and the advice the watcher would give, and
	// returns the advice to give in its place; "" gives none, for errors
	// shown to people who can call nothing, such as a service's users,
	// who then read the problem alone. It must not block, and it may be
	// asked more than once for the same refusal.
	Word func(err error, advice string) string
}

// Refusal words be's remedy the program's way, in be.Remedy, when a has
// one for its Reason. It returns be.
func (a *Advice) Refusal(be *BlockedError) *BlockedError {
	if a == nil || be == nil {
		return be
	}
	if be.Frame != "" {
		if r, ok := a.FrameRefused[be.Reason]; ok {
			be.Remedy = r
			return a.word(be)
		}
		if be.Reason == ErrNoDocument {
			return a.word(be)
		}
	}
	r, ok := a.Refused[be.Reason]
	if !ok && be.Reason != ErrNoDocument && noDocument(be.Reason) {
		// A load stopped at a prompt is a load that failed, unless told apart.
		r, ok = a.Refused[ErrNoDocument]
	}
	if ok {
		be.Remedy = r
	}
	return a.word(be)
}

// word lets Word word be's advice.
func (a *Advice) word(be *BlockedError) *BlockedError {
	if a.Word == nil || be.Reworded {
		return be
	}
	be.Remedy = a.Word(be, be.Advice())
	be.Reworded = true
	return be
}

// Words lets Word word te's advice, once. It returns te.
func (a *Advice) Words(te *TimeoutError) *TimeoutError {
	if a == nil || a.Word == nil || te == nil || te.Reworded {
		return te
	}
	te.Advice = a.Word(te, te.Advice)
	te.Reworded = true
	return te
}

// Timeout is the remedy of a timeout with cause the program's way, if a
// has one.
func (a *Advice) Timeout(cause TimeoutCause) (string, bool) {
	if a == nil {
		return "", false
	}
	r, ok := a.TimedOut[cause]
	return r, ok
}
