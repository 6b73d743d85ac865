package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// errUnknownTab is the tool error for a tab ID the server does not know.
var errUnknownTab = errors.New("unknown tab")

// toolAdvice words the remedy of every error in this server's tool names,
// for a model: the library's own advice names its Go calls, which a model
// does not have. The server stops a runaway script itself at a call's
// deadline (TerminateOnTimeout), so a busy script rarely needs more than
// a retry; where one is left running, and for a hung renderer,
// recover_tab brings the tab back. A load
// stopped at a certificate meets it again on a reload, and the server has
// no certificates to give: only another page helps. A sign-in and a file
// chooser are got past with handle_prompt where pc, the server's
// configuration, has something to give; otherwise only another page
// helps, or for a chooser, no file.
func toolAdvice(pc agentprompt.Config) *tabguard.Advice {
	signIn := "the page needs credentials the server does not have: call navigate for another page"
	frameSignIn := "the iframe's page needs credentials the server does not have: call list_frames for the tab's other frames"
	if len(pc.Credentials) > 0 {
		signIn = "call handle_prompt with kind sign_in and the origin named here, then navigate again; without credentials for it, call navigate for another page"
		frameSignIn = "call handle_prompt with kind sign_in and the origin named here, then reload_tab; without credentials for it, call list_frames for the tab's other frames"
	}
	chooser := "the page was told no file was chosen: the server has no upload directory, so it gives pages no files"
	if pc.UploadDir != "" {
		chooser = "the page was told no file was chosen: call handle_prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then click the input again"
	}
	return &tabguard.Advice{
		Refused: map[error]string{
			tabguard.ErrTabCrashed:         "call reload_tab",
			tabguard.ErrNoDocument:         "call navigate, or reload_tab to try the same URL",
			tabguard.ErrSignInRequired:     signIn,
			tabguard.ErrCredentialsRefused: "the site refused the credentials the server has for it, which only the server's operator can change: call navigate for another page",
			tabguard.ErrCertificate:        "the server cannot accept a certificate the browser refuses: call navigate for another page",
			tabguard.ErrClientCertificate:  "the site asks for a client certificate the server does not have: call navigate for another page",
			tabguard.ErrFileChooser:        chooser,
			tabguard.ErrLocalNetworkDenied: "the server lets no page reach this machine or the local network, and the tab still answers: call eval_in_tab without that request, or navigate for another page",
			tabguard.ErrDialogOpen:         "call handle_dialog",
			tabguard.ErrTabClosed:          "call open_tab",
			tabguard.ErrTabDiscarded:       "call open_tab",
			tabguard.ErrBrowserGone:        "the server has lost its browser: restart it",
			tabguard.ErrPaused:             "a debugger paused the page: resume it there",
			tabguard.ErrNavigated:          "retry the call",
			tabguard.ErrTerminated:         "retry the call",
			tabguard.ErrFrameCrashed:       "call reload_tab",
			tabguard.ErrFrameDetached:      "call list_frames",
			// The server sets no download directory: the browser denies every download.
			tabguard.ErrDownload: "the page was not left and still answers: the server saves no downloads",
		},
		TimedOut: map[tabguard.TimeoutCause]string{
			tabguard.TimeoutHung:       "call recover_tab: it dismisses a dialog, or crashes the renderer and reloads the tab, keeping its history",
			tabguard.TimeoutSilent:     "the server's browser does not answer: restart the server",
			tabguard.TimeoutBusyScript: "call recover_tab to stop the script",
			tabguard.TimeoutLoading:    "retry the call",
			tabguard.TimeoutUnknown:    "retry the call, or call recover_tab, which asks the page why and acts only on what it finds",
			tabguard.TimeoutHidden:     "retry the call",
			tabguard.TimeoutFrozen:     "retry the call",
		},
		// An iframe whose page failed to load comes back when the tab
		// reloads: a navigation elsewhere would not bring it. One stopped
		// at a prompt meets it again on a reload: the other frames are
		// what is left to read.
		FrameRefused: map[error]string{
			tabguard.ErrNoDocument:         "call reload_tab",
			tabguard.ErrSignInRequired:     frameSignIn,
			tabguard.ErrCredentialsRefused: "the iframe's site refused the credentials the server has for it, which only the server's operator can change: call list_frames for the tab's other frames",
			tabguard.ErrCertificate:        "the server cannot accept a certificate the browser refuses: call list_frames for the tab's other frames",
			tabguard.ErrClientCertificate:  "the iframe's site asks for a client certificate the server does not have: call list_frames for the tab's other frames",
		},
		FrameLoading: "call list_frames for the frames that loaded",
		FrameLazy:    "scroll the iframe into view with eval_in_tab, or call list_frames for the frames that loaded",
	}
}

// actionWords puts the tools in place of the Go calls an action's advice
// names; the more specific phrases come first, as a Replacer tries its
// pairs in order.
var actionWords = strings.NewReplacer(
	"take a fresh snapshot with Watcher.Snapshot", "take fresh refs with the snapshot tool",
	"take fresh refs with Watcher.Snapshot", "take fresh refs with the snapshot tool",
	"Watcher.Snapshot lists", "the snapshot tool lists",
	"leave Action.Frame empty for the main frame", "leave frame out for the main frame",
	"pass Action.Frame ", "pass frame ",
	"(Watcher.Frames lists the frames)", "(list_frames lists them)",
	"(a scroll action on it)", "(call scroll with its ref or selector)",
	"Watcher.Snapshot", "the snapshot tool",
	"Watcher.Frames", "list_frames",
	"Watcher.Eval", "eval_in_tab",
)

// wordAction is the watchers' Advice.Word: an action that could not act
// (ErrNotActionable, ErrNoMatch, ErrStaleRef) gets its advice in the
// tools' terms. Refusals and timeouts keep what toolAdvice's maps gave.
func wordAction(err error, advice string) string {
	switch err.(type) {
	case *tabguard.BlockedError, *tabguard.TimeoutError:
		return advice
	}
	return actionWords.Replace(advice)
}

// wordedError is an error whose text names the tools in place of the Go
// calls, and which still matches what it wraps.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }

// toolError words the errors the advice table does not cover, which are
// about a tool's input rather than the tab, and keeps the library's own
// names out of a cancelled file chooser's detail.
func toolError(err error) error {
	var fe *frameURLError
	var be *tabguard.BlockedError
	switch {
	case errors.As(err, &be) && be.Reason == tabguard.ErrFileChooser:
		return chooserError(be)
	case errors.As(err, &fe):
		return fmt.Errorf("%v: the server reads no frame at a URL it would not open", err)
	case errors.Is(err, tabguard.ErrNoDialog):
		return errors.New("no JavaScript dialog is open: nothing to handle")
	case errors.Is(err, tabguard.ErrSnapshotGone):
		return errors.New("that snapshot is gone (the page navigated, or it went unread for a minute): call get_tab_dom without snapshot and offset")
	case errors.Is(err, tabguard.ErrURLBlocked):
		return fmt.Errorf("%v: the server does not open it", err)
	case errors.Is(err, tabguard.ErrCaptureTooLarge):
		return captureTooLarge(err)
	case errors.Is(err, tabguard.ErrStaleRef), errors.Is(err, tabguard.ErrNotActionable), errors.Is(err, tabguard.ErrNoMatch):
		// A ref checked before the page is asked has no Word to go through.
		if msg := actionWords.Replace(err.Error()); msg != err.Error() {
			return &wordedError{msg: msg, err: err}
		}
	}
	return err
}

// chooserError is be, a cancelled file chooser, with its detail in the
// server's terms: the input's mode, and why the files handle_prompt gave
// were not used, rather than the library's option names.
func chooserError(be *tabguard.BlockedError) error {
	mode, why, _ := strings.Cut(be.Detail, ": ")
	c := *be
	switch {
	case strings.HasSuffix(why, "files for a single-file input"):
		c.Detail = mode + ": it takes one file, and handle_prompt gave several"
	case why != "":
		c.Detail = mode + ": no files were given with handle_prompt"
	default:
		c.Detail = mode
	}
	return &c
}

// captureTooLarge is err, a full-page screenshot over the watcher's bound
// in pixels, with the page's size and the bound it names, and the remedy
// in the server's tools in place of the library's option, which a model
// cannot set.
func captureTooLarge(err error) error {
	msg := strings.TrimPrefix(err.Error(), tabguard.ErrCaptureTooLarge.Error())
	if i := strings.LastIndex(msg, ": capture the viewport"); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("%w%s: call screenshot with full_page false for the viewport", tabguard.ErrCaptureTooLarge, msg)
}
