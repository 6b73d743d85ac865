package main

import (
	"errors"
	"fmt"

	"github.com/tabguard/tabguard"
)

// errUnknownTab is the tool error for a tab ID the server does not know.
var errUnknownTab = errors.New("unknown tab")

// toolAdvice words the remedy of every error in this server's tool names,
// for a model: the library's own advice names its Go calls, which a model
// does not have. The server stops runaway scripts itself
// (TerminateOnTimeout), so a busy script needs nothing but a retry. A load
// stopped at a prompt (sign-in, a certificate) meets the same prompt on a
// reload, and the server has no credentials or certificates to give: only
// another page helps.
func toolAdvice() *tabguard.Advice {
	return &tabguard.Advice{
		Refused: map[error]string{
			tabguard.ErrTabCrashed:        "call reload_tab",
			tabguard.ErrNoDocument:        "call navigate, or reload_tab to try the same URL",
			tabguard.ErrSignInRequired:    "the page needs credentials the server does not have: call navigate for another page",
			tabguard.ErrCertificate:       "the server cannot accept a certificate the browser refuses: call navigate for another page",
			tabguard.ErrClientCertificate: "the site asks for a client certificate the server does not have: call navigate for another page",
			tabguard.ErrDialogOpen:        "call handle_dialog",
			tabguard.ErrTabClosed:         "call open_tab",
			tabguard.ErrTabDiscarded:      "call open_tab",
			tabguard.ErrBrowserGone:       "the server has lost its browser: restart it",
			tabguard.ErrPaused:            "a debugger paused the page: resume it there",
			tabguard.ErrNavigated:         "retry the call",
			tabguard.ErrTerminated:        "retry the call",
			tabguard.ErrFrameCrashed:      "call reload_tab",
			tabguard.ErrFrameDetached:     "call list_frames",
			// The server sets no download directory: the browser denies every download.
			tabguard.ErrDownload: "the page was not left and still answers; the server saves no downloads",
		},
		TimedOut: map[tabguard.TimeoutCause]string{
			tabguard.TimeoutHung:       "call handle_dialog if a dialog is open; otherwise call close_tab and open_tab",
			tabguard.TimeoutSilent:     "the server's browser does not answer: restart the server",
			tabguard.TimeoutBusyScript: "retry the call",
			tabguard.TimeoutLoading:    "retry the call",
			tabguard.TimeoutUnknown:    "retry the call",
			tabguard.TimeoutHidden:     "retry the call",
			tabguard.TimeoutFrozen:     "retry the call",
		},
		// An iframe whose page failed to load comes back when the tab
		// reloads: a navigation elsewhere would not bring it. One stopped
		// at a prompt meets it again on a reload: the other frames are
		// what is left to read.
		FrameRefused: map[error]string{
			tabguard.ErrNoDocument:        "call reload_tab",
			tabguard.ErrSignInRequired:    "the iframe's page needs credentials the server does not have: call list_frames for the tab's other frames",
			tabguard.ErrCertificate:       "the server cannot accept a certificate the browser refuses: call list_frames for the tab's other frames",
			tabguard.ErrClientCertificate: "the iframe's site asks for a client certificate the server does not have: call list_frames for the tab's other frames",
		},
		FrameLoading: "call list_frames for the frames that loaded",
		FrameLazy:    "scroll the iframe into view with eval_in_tab, or call list_frames for the frames that loaded",
	}
}

// toolError words the errors the advice table does not cover, which are
// about a tool's input rather than the tab.
func toolError(err error) error {
	var fe *frameURLError
	switch {
	case errors.As(err, &fe):
		return fmt.Errorf("%v: the server reads no frame at a URL it would not open", err)
	case errors.Is(err, tabguard.ErrNoDialog):
		return errors.New("no JavaScript dialog is open: nothing to handle")
	case errors.Is(err, tabguard.ErrSnapshotGone):
		return errors.New("that snapshot is gone (the page navigated, or it went unread for a minute): call get_tab_dom without snapshot and offset")
	case errors.Is(err, tabguard.ErrURLBlocked):
		return fmt.Errorf("%v: the server does not open it", err)
	}
	return err
}
