package main

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// TestToolAdvice holds that every refusal and every timeout names a tool
// of this server, never a Go call: a model has tools.
func TestToolAdvice(t *testing.T) {
	reasons := []error{tabguard.ErrTabCrashed, tabguard.ErrNoDocument, tabguard.ErrDialogOpen, tabguard.ErrTabClosed,
		tabguard.ErrTabDiscarded, tabguard.ErrBrowserGone, tabguard.ErrPaused, tabguard.ErrNavigated, tabguard.ErrTerminated,
		tabguard.ErrFrameCrashed, tabguard.ErrFrameDetached,
		tabguard.ErrSignInRequired, tabguard.ErrCredentialsRefused, tabguard.ErrCertificate, tabguard.ErrClientCertificate,
		tabguard.ErrDownload, tabguard.ErrFileChooser, tabguard.ErrLocalNetworkDenied}
	configured := agentprompt.Config{Credentials: map[string]tabguard.Credentials{"http://x": {Username: "u", Password: "p"}}, UploadDir: "/srv/uploads"}
	for _, pc := range []agentprompt.Config{{}, configured} {
		advice := toolAdvice(pc)
		for _, reason := range reasons {
			for _, frame := range []string{"", "F1"} {
				be := advice.Refusal(&tabguard.BlockedError{Reason: reason, Frame: frame, Detail: "x"})
				assert.NotEmpty(t, be.Remedy, "%v has no remedy", reason)
				assert.NotContains(t, be.Error(), "Watcher.", "a model has tools, not Go calls")
				assert.NotContains(t, be.Error(), "Options.")
			}
		}
	}
	advice := toolAdvice(agentprompt.Config{})
	causes := []tabguard.TimeoutCause{tabguard.TimeoutUnknown, tabguard.TimeoutLoading, tabguard.TimeoutUnsettled,
		tabguard.TimeoutHidden, tabguard.TimeoutFrozen, tabguard.TimeoutBusyScript, tabguard.TimeoutHung, tabguard.TimeoutSilent}
	for _, cause := range causes {
		remedy, ok := advice.Timeout(cause)
		if cause == tabguard.TimeoutUnsettled { // the page is healthy: the default says nothing
			assert.False(t, ok)
			continue
		}
		assert.True(t, ok, "%v has no remedy", cause)
		te := &tabguard.TimeoutError{Limit: time.Second, Cause: cause, Doing: "page http://x/", Advice: remedy}
		assert.NotContains(t, te.Error(), "Watcher.")
		assert.NotContains(t, te.Error(), "proto.")
	}
	be := advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, Detail: "oom"})
	assert.EqualError(t, be, "tab renderer crashed (reason: oom): call reload_tab")
}

func TestToolError(t *testing.T) {
	advice := toolAdvice(agentprompt.Config{}) // as the watchers word their refusals
	uploads := toolAdvice(agentprompt.Config{UploadDir: "/srv/uploads"})
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no dialog", tabguard.ErrNoDialog, "no JavaScript dialog is open: nothing to handle"},
		{"snapshot gone", fmt.Errorf("%w: s1", tabguard.ErrSnapshotGone),
			"that snapshot is gone (the page navigated, or it went unread for a minute): call get_tab_dom without snapshot and offset"},
		{"a refusal words itself", &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, Remedy: "call reload_tab"},
			"tab renderer crashed: call reload_tab"},
		{"a frame's failed load", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrNoDocument, Frame: "F1", URL: "http://x/", Detail: "net::ERR_CONNECTION_REFUSED"}),
			"frame has no document: net::ERR_CONNECTION_REFUSED loading http://x/: call reload_tab"},
		{"a frame's crash", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrFrameCrashed, Frame: "F1", URL: "http://x/", Detail: "oom"}),
			"frame renderer crashed (reason: oom) in http://x/: call reload_tab"},
		{"a frame gone", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrFrameDetached, Frame: "F1", Detail: "no such frame in the tab"}),
			"frame is detached: no such frame in the tab (frame F1): call list_frames"},
		{"a frame's navigation", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrNavigated, Frame: "F1", URL: "http://x/"}),
			"frame navigated away during the eval (now at http://x/): retry the call"},
		{"sign-in required", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrSignInRequired, URL: "http://x/", Detail: "net::ERR_INVALID_AUTH_CREDENTIALS for x"}),
			"sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for x: the page needs credentials the server does not have: call navigate for another page"},
		{"untrusted certificate", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrCertificate, URL: "https://x/", Detail: "net::ERR_CERT_AUTHORITY_INVALID for x"}),
			"certificate error: net::ERR_CERT_AUTHORITY_INVALID for x: the server cannot accept a certificate the browser refuses: call navigate for another page"},
		{"client certificate requested", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrClientCertificate, URL: "https://x/", Detail: "net::ERR_BAD_SSL_CLIENT_AUTH_CERT for x"}),
			"client certificate requested: net::ERR_BAD_SSL_CLIENT_AUTH_CERT for x: the site asks for a client certificate the server does not have: call navigate for another page"},
		{"a frame's sign-in", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrSignInRequired, Frame: "F1", URL: "http://x/", Detail: "net::ERR_INVALID_AUTH_CREDENTIALS for x"}),
			"sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for x: the iframe's page needs credentials the server does not have: call list_frames for the tab's other frames"},
		{"a frame's certificate", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrCertificate, Frame: "F1", URL: "https://x/", Detail: "net::ERR_CERT_DATE_INVALID for x"}),
			"certificate error: net::ERR_CERT_DATE_INVALID for x: the server cannot accept a certificate the browser refuses: call list_frames for the tab's other frames"},
		{"a frame the policy refuses", &frameURLError{frame: "F1", err: fmt.Errorf("%w: http://x/: its origin http://x is blocked", tabguard.ErrURLBlocked)},
			"frame F1: URL not allowed: http://x/: its origin http://x is blocked: the server reads no frame at a URL it would not open"},
		{"a download", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrDownload, URL: "http://x/x.bin", Detail: `"x.bin" denied`}),
			`navigation became a download: "x.bin" denied: the page was not left and still answers: the server saves no downloads`},
		{"a chooser cancelled", advice.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrFileChooser, URL: "http://x/", Detail: "selectSingle input"}),
			"file chooser was cancelled: selectSingle input: the page was told no file was chosen: the server has no upload directory, so it gives pages no files"},
		{"a chooser given none", uploads.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrFileChooser, URL: "http://x/", Detail: "selectMultiple input: Options.FileChooser chose no file"}),
			"file chooser was cancelled: selectMultiple input: no files were given with handle_prompt: the page was told no file was chosen: call handle_prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then click the input again"},
		{"a chooser given too many", uploads.Refusal(&tabguard.BlockedError{Reason: tabguard.ErrFileChooser, URL: "http://x/", Detail: "selectSingle input: Options.FileChooser chose 2 files for a single-file input"}),
			"file chooser was cancelled: selectSingle input: it takes one file, and handle_prompt gave several: the page was told no file was chosen: call handle_prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then click the input again"},
		{"other", errors.New("decode result: bad"), "decode result: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.EqualError(t, toolError(tt.err), tt.want)
		})
	}
	assert.NoError(t, toolError(nil))
}

// An action's advice names the tools, never the Go calls.
func TestWordAction(t *testing.T) {
	tests := []struct{ in, want string }{
		{"take fresh refs with Watcher.Snapshot", "take fresh refs with the snapshot tool"},
		{"wait until it shows, or act on a visible element (Watcher.Snapshot lists them)", "wait until it shows, or act on a visible element (the snapshot tool lists them)"},
		{"check the selector: Watcher.Snapshot lists what the page holds", "check the selector: the snapshot tool lists what the page holds"},
		{"leave Action.Frame empty for the main frame", "leave frame out for the main frame"},
		{`pass Action.Frame "F1" (Watcher.Frames lists the frames)`, `pass frame "F1" (list_frames lists them)`},
		{"scroll the page to it first (a scroll action on it)", "scroll the page to it first (call scroll with its ref or selector)"},
		{"dismiss what covers it first (act on it, or on its close button), or act on what covers it", "dismiss what covers it first (act on it, or on its close button), or act on what covers it"},
	}
	for _, tt := range tests {
		if got := wordAction(errors.New("x"), tt.in); got != tt.want {
			t.Errorf("wordAction(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	be := &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed}
	assert.Equal(t, "reload the tab (Watcher.Reload)", wordAction(be, "reload the tab (Watcher.Reload)"), "a refusal keeps the maps' words")
}
