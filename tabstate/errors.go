package tabstate

import (
	"errors"
	"strings"
)

// Reasons an eval is refused or cut short. Each is the Reason of a
// [*BlockedError]; test for them with [errors.Is].
var (
	// ErrTabCrashed reports that the tab's renderer process is gone.
	ErrTabCrashed = errors.New("tab renderer crashed")
	// ErrNoDocument reports that the tab's main frame holds no document of
	// the page it was sent to: the load failed or an error page stands in.
	ErrNoDocument = errors.New("tab has no document")
	// ErrTabClosed reports that the tab was closed or detached.
	ErrTabClosed = errors.New("tab is closed")
	// ErrTabDiscarded reports that the browser discarded the tab to save
	// memory: a new target, with the same URL and history but no renderer,
	// stands in for it until it is reloaded.
	ErrTabDiscarded = errors.New("tab was discarded by the browser")
	// ErrBrowserGone reports that the connection to the browser is lost:
	// the browser process died or its DevTools socket closed.
	ErrBrowserGone = errors.New("browser is gone")
	// ErrDialogOpen reports that an alert, confirm, prompt or beforeunload
	// dialog is open: the page runs no script until it is closed.
	ErrDialogOpen = errors.New("tab has a JavaScript dialog open")
	// ErrPaused reports that the page's JavaScript is paused in the
	// debugger, by a breakpoint or a debugger statement.
	ErrPaused = errors.New("tab is paused in the debugger")
	// ErrNavigated reports that the page navigated away, or reloaded,
	// while an eval ran: the document it ran in is gone.
	ErrNavigated = errors.New("page navigated away during the eval")
	// ErrTerminated reports that Runtime.terminateExecution stopped the
	// eval's script: another eval on the tab timed out with
	// Options.TerminateOnTimeout, or another client terminated it.
	ErrTerminated = errors.New("eval's script was terminated")
	// ErrFrameCrashed reports that an iframe's own renderer process died
	// (an out-of-process iframe); the tab itself lives on.
	ErrFrameCrashed = errors.New("frame renderer crashed")
	// ErrFrameDetached reports that the frame is gone from the tab, or was
	// removed or moved to another process while the call ran.
	ErrFrameDetached = errors.New("frame is detached")
	// ErrConnectionDropped reports that the connection to the browser
	// dropped while the call was under way, or before it was sent, and
	// that the browser lives on: the call did not answer. Detail says
	// whether the connection was resumed (then the call may be sent
	// again) or is still resuming. A connection that is not resumed
	// answers ErrBrowserGone.
	ErrConnectionDropped = errors.New("connection to the browser dropped")
)

// BlockedError explains why an eval was refused or cut short.
type BlockedError struct {
	// Reason is one of ErrTabCrashed, ErrNoDocument, ErrTabClosed,
	// ErrTabDiscarded, ErrBrowserGone, ErrDialogOpen, ErrPaused, ErrNavigated, ErrTerminated,
	// ErrFrameCrashed, ErrFrameDetached, ErrConnectionDropped.
	Reason error
	// Frame is the iframe the refusal is about; empty for the tab itself.
	Frame string
	// URL is the last known URL of the tab; it may be empty.
	URL string
	// Detail is the crash status ("oom"), the load error
	// ("net::ERR_CONNECTION_REFUSED"), the dialog (alert "hello") or the
	// pause reason ("other"); it may be empty.
	Detail string
	// Remedy, when set, is the advice in the program's own terms
	// ([Advice]), which Error and Advice give in place of the default.
	Remedy string
	// Reworded says Remedy is the program's word for the advice
	// ([Advice].Word), given even when empty: then the error gives no
	// advice.
	Reworded bool
	// Step is where a call of several steps was when the refusal cut it
	// short, as in [TimeoutError]; empty for a refusal up front and for a
	// call of one step.
	Step string
	// Console is the tab's last console messages when the call was
	// refused or cut short, oldest first, at most five: what the page said
	// before it stopped answering, for a program to show. Error leaves
	// them out.
	Console []ConsoleMessage
}

// Error reads like "tab renderer crashed (reason: oom): reload the tab
// (Watcher.Reload)": the problem, then the call that fixes it.
func (e *BlockedError) Error() string {
	problem := e.Problem()
	if advice := e.Advice(); advice != "" {
		return problem + ": " + advice
	}
	return problem
}

// Problem is the error's text without the advice, such as "tab has no
// document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:40123/",
// for programs that word their own advice (an HTTP endpoint, an MCP tool).
func (e *BlockedError) Problem() string {
	var b strings.Builder
	switch {
	case e.Reason == nil:
		b.WriteString("eval blocked")
	case e.Frame != "" && e.Reason == ErrNoDocument:
		b.WriteString("frame has no document")
	case e.Frame != "" && e.Reason == ErrNavigated:
		b.WriteString("frame navigated away during the eval")
	default:
		b.WriteString(e.Reason.Error())
	}
	switch e.Reason {
	case ErrFrameCrashed:
		if e.Detail != "" {
			b.WriteString(" (reason: " + e.Detail + ")")
		}
		if e.URL != "" {
			b.WriteString(" in " + ShownURL(e.URL))
		}
	case ErrFrameDetached:
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		b.WriteString(" (frame " + e.Frame + ")")
	case ErrTabCrashed, ErrPaused:
		if e.Detail != "" {
			b.WriteString(" (reason: " + e.Detail + ")")
		}
	case ErrBrowserGone, ErrConnectionDropped:
		if e.Detail != "" {
			b.WriteString(" (" + e.Detail + ")")
		}
	case ErrNoDocument:
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		if e.URL != "" {
			b.WriteString(" loading " + ShownURL(e.URL))
		}
	case ErrTabDiscarded:
		if e.Detail != "" {
			b.WriteString(" (" + e.Detail + ")")
		}
	case ErrTerminated:
		b.WriteString(" by Runtime.terminateExecution")
	case ErrNavigated:
		if e.URL != "" {
			b.WriteString(" (now at " + ShownURL(e.URL) + ")")
		}
	default:
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
	}
	if e.Step != "" {
		b.WriteString(" (" + e.Step + ")")
	}
	return b.String()
}

// Advice says what fixes the problem: the Remedy when set, or by default
// the watcher's own calls, such as "reload the tab (Watcher.Reload)"; it is
// empty for an unknown Reason.
func (e *BlockedError) Advice() string {
	if e.Remedy != "" || e.Reworded {
		return e.Remedy
	}
	switch e.Reason {
	case ErrTabCrashed:
		return "reload the tab (Watcher.Reload)"
	case ErrNoDocument:
		if e.Frame != "" {
			return "reload the tab (Watcher.Reload)"
		}
		return "navigate again (Watcher.Navigate)"
	case ErrTabClosed:
		return "open a new tab"
	case ErrTabDiscarded:
		return "revive its replacement (TabState.ReplacedBy) with Target.activateTarget, then watch it"
	case ErrBrowserGone:
		return "reconnect to or relaunch the browser"
	case ErrDialogOpen:
		return "accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs"
	case ErrPaused:
		return "resume it with Debugger.resume"
	case ErrTerminated, ErrNavigated:
		return "retry the eval"
	case ErrConnectionDropped:
		return "retry the call once the connection is resumed"
	case ErrSignInRequired:
		return "the page needs credentials: give them with Options.Credentials, or navigate to another page (Watcher.Navigate)"
	case ErrCredentialsRefused:
		return "the server refused the credentials Options.Credentials gave: fix them, or navigate to another page (Watcher.Navigate)"
	case ErrCertificate:
		return "the browser does not trust the server's certificate: fix the server's certificate, or navigate to another page (Watcher.Navigate)"
	case ErrClientCertificate:
		return "the browser has no certificate to give: navigate to another page (Watcher.Navigate)"
	case ErrDownload:
		return downloadAdvice(e.Detail)
	case ErrLocalNetworkDenied:
		return localNetworkAdvice(e.Detail)
	case ErrFileChooser:
		return chooserAdvice(e.Detail)
	case ErrFrameCrashed:
		return "reload the tab (Watcher.Reload)"
	case ErrFrameDetached:
		return "list the tab's frames again (Watcher.Frames)"
	}
	return ""
}

// Unwrap returns the Reason as the error tells it, so that
// errors.Is(err, ErrTabCrashed) works, and so that a program or an error
// library that reports the innermost error of a chain (its root cause)
// reports the problem whole, "tab renderer crashed (reason: oom)" or
// "download began: report.pdf", not the Reason's bare text. It returns
// nil when Reason is nil.
func (e *BlockedError) Unwrap() error {
	if e.Reason == nil {
		return nil
	}
	return &reasonError{reason: e.Reason, problem: e.Problem()}
}

// reasonError is a BlockedError's Reason as the error tells it: its text
// is the problem, without advice, and it matches the Reason, which it
// does not unwrap to, being the chain's end.
type reasonError struct {
	reason  error
	problem string
}

func (r *reasonError) Error() string { return r.problem }

// Is matches the Reason, and what the Reason matches.
func (r *reasonError) Is(target error) bool { return errors.Is(r.reason, target) }

// Is makes a load stopped at a prompt (ErrSignInRequired,
// ErrCredentialsRefused, ErrCertificate, ErrClientCertificate) match
// ErrNoDocument too.
func (e *BlockedError) Is(target error) bool {
	return target == ErrNoDocument && noDocument(e.Reason)
}

// ErrNoDialog reports a call to handle a JavaScript dialog on a tab that
// shows none.
var ErrNoDialog = errors.New("no JavaScript dialog is open")

// ShownURL is rawURL as an error message shows it: a password in it (as
// in http://user:password@host/) reads "xxxxx", as net/url's Redacted has
// it, so a message, a log line or a tool result does not give it away.
// Anything else is shown as it is.
func ShownURL(rawURL string) string {
	head, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return rawURL
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return rawURL
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return rawURL
	}
	return head + "://" + user + ":xxxxx" + rest[at:]
}
