package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard"
)

func TestAPIError(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		want   string
	}{
		{"crash", &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, Detail: "oom"}, http.StatusInternalServerError,
			"tab renderer crashed (reason: oom): POST /browser/reload"},
		{"no document", &tabguard.BlockedError{Reason: tabguard.ErrNoDocument, URL: "http://x/", Detail: "net::ERR_NAME_NOT_RESOLVED"}, http.StatusInternalServerError,
			"tab has no document: net::ERR_NAME_NOT_RESOLVED loading http://x/: POST /browser/navigate, or POST /browser/reload to try the same URL"},
		{"dialog", &tabguard.BlockedError{Reason: tabguard.ErrDialogOpen, Detail: `alert "hi"`}, http.StatusInternalServerError,
			`tab has a JavaScript dialog open: alert "hi": POST /browser/dialog`},
		{"closed", &tabguard.BlockedError{Reason: tabguard.ErrTabClosed}, http.StatusInternalServerError,
			"tab is closed: open a new tab with POST /browser/tabs"},
		{"discarded", &tabguard.BlockedError{Reason: tabguard.ErrTabDiscarded, Detail: "replaced by ID"}, http.StatusInternalServerError,
			"tab was discarded by the browser (replaced by ID): open a new tab with POST /browser/tabs"},
		{"browser gone", &tabguard.BlockedError{Reason: tabguard.ErrBrowserGone}, http.StatusInternalServerError,
			"browser is gone: the server has lost its browser: restart it"},
		{"paused", &tabguard.BlockedError{Reason: tabguard.ErrPaused, Detail: "other"}, http.StatusInternalServerError,
			"tab is paused in the debugger (reason: other): a debugger paused the page: resume it there"},
		{"navigated", &tabguard.BlockedError{Reason: tabguard.ErrNavigated, URL: "http://x/"}, http.StatusInternalServerError,
			"page navigated away during the eval (now at http://x/): retry the call"},
		{"wrapped", fmt.Errorf("read: %w", &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed}), http.StatusInternalServerError,
			"tab renderer crashed: POST /browser/reload"},
		{"failed open", &loadError{url: "http://x/", err: &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed}}, http.StatusInternalServerError,
			"load http://x/: tab renderer crashed: POST /browser/reload"},
		{"open out of time", &loadError{url: "http://x/", within: time.Second, err: context.DeadlineExceeded}, http.StatusGatewayTimeout,
			"load http://x/: not loaded within 1s: context deadline exceeded"},
		{"failed open, a password in the URL", &loadError{url: "http://agent:hunter2@x/", err: &tabguard.BlockedError{Reason: tabguard.ErrSignInRequired, Detail: "net::ERR_INVALID_AUTH_CREDENTIALS for x"}},
			http.StatusInternalServerError, "load http://agent:xxxxx@x/: sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for x: " +
				"the page needs credentials the server does not have: POST /browser/navigate to another page"},
		{"sign-in required", &tabguard.BlockedError{Reason: tabguard.ErrSignInRequired, URL: "http://x/", Detail: "net::ERR_INVALID_AUTH_CREDENTIALS for x"},
			http.StatusInternalServerError, "sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for x: the page needs credentials the server does not have: POST /browser/navigate to another page"},
		{"untrusted certificate", &tabguard.BlockedError{Reason: tabguard.ErrCertificate, URL: "https://x/", Detail: "net::ERR_CERT_AUTHORITY_INVALID for x"},
			http.StatusInternalServerError, "certificate error: net::ERR_CERT_AUTHORITY_INVALID for x: the server cannot accept a certificate the browser refuses: POST /browser/navigate to another page"},
		{"client certificate requested", &tabguard.BlockedError{Reason: tabguard.ErrClientCertificate, URL: "https://x/", Detail: "net::ERR_BAD_SSL_CLIENT_AUTH_CERT for x"},
			http.StatusInternalServerError, "client certificate requested: net::ERR_BAD_SSL_CLIENT_AUTH_CERT for x: the site asks for a client certificate the server does not have: POST /browser/navigate to another page"},
		{"a frame's sign-in", &tabguard.BlockedError{Reason: tabguard.ErrSignInRequired, Frame: "F1", URL: "http://x/", Detail: "net::ERR_INVALID_AUTH_CREDENTIALS for x"},
			http.StatusInternalServerError, "sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for x: the iframe's page needs credentials the server does not have: GET /browser/frames for the tab's other frames"},
		{"a frame's certificate", &tabguard.BlockedError{Reason: tabguard.ErrCertificate, Frame: "F1", URL: "https://x/", Detail: "net::ERR_CERT_DATE_INVALID for x"},
			http.StatusInternalServerError, "certificate error: net::ERR_CERT_DATE_INVALID for x: the server cannot accept a certificate the browser refuses: GET /browser/frames for the tab's other frames"},
		{"a frame's client certificate", &tabguard.BlockedError{Reason: tabguard.ErrClientCertificate, Frame: "F1", URL: "https://x/", Detail: "net::ERR_BAD_SSL_CLIENT_AUTH_CERT for x"},
			http.StatusInternalServerError, "client certificate requested: net::ERR_BAD_SSL_CLIENT_AUTH_CERT for x: the iframe's site asks for a client certificate the server does not have: GET /browser/frames for the tab's other frames"},
		{"a download", &tabguard.BlockedError{Reason: tabguard.ErrDownload, URL: "http://x/x.bin", Detail: `"x.bin" denied`},
			http.StatusInternalServerError, `navigation became a download: "x.bin" denied: the page was not left and still answers: the server saves no downloads`},
		{"no dialog", tabguard.ErrNoDialog, http.StatusConflict, "no JavaScript dialog is open: nothing to handle"},
		{"URL blocked", fmt.Errorf("%w: file:///x: the file: scheme is not allowed", tabguard.ErrURLBlocked), http.StatusForbidden,
			"URL not allowed: file:///x: the file: scheme is not allowed: the server does not open it (see -allow-schemes, -allowed-origins, -blocked-origins)"},
		{"bad request", badRequest("missing tab"), http.StatusBadRequest, "missing tab"},
		{"unknown tab", fmt.Errorf("%w %q", errUnknownTab, "x"), http.StatusBadRequest, `unknown tab "x"`},
		{"timeout, hung renderer", &tabguard.TimeoutError{Limit: time.Second, Cause: tabguard.TimeoutHung,
			Doing: "renderer of page http://x/ answers nothing", Advice: "close the tab with Watcher.CloseTab"}, http.StatusGatewayTimeout,
			"eval timed out after 1s (renderer of page http://x/ answers nothing): POST /browser/dialog if a dialog is open; " +
				"otherwise POST /browser/close and open a new tab with POST /browser/tabs"},
		{"timeout, unsettled promise", &tabguard.TimeoutError{Limit: time.Second, Cause: tabguard.TimeoutUnsettled,
			Doing: "page http://x/ answers, but the eval's promise never settled"}, http.StatusGatewayTimeout,
			"eval timed out after 1s (page http://x/ answers, but the eval's promise never settled)"},
		{"timeout, silent browser", fmt.Errorf("read: %w", &tabguard.TimeoutError{Limit: time.Second, Cause: tabguard.TimeoutSilent,
			Advice: "set Options.Heartbeat"}), http.StatusGatewayTimeout,
			"eval timed out after 1s: the server's browser does not answer: restart the server"},
		{"a frame's failed load", &tabguard.BlockedError{Reason: tabguard.ErrNoDocument, Frame: "F1", URL: "http://x/", Detail: "net::ERR_CONNECTION_REFUSED"},
			http.StatusInternalServerError, "frame has no document: net::ERR_CONNECTION_REFUSED loading http://x/: POST /browser/reload"},
		{"a frame's crash", &tabguard.BlockedError{Reason: tabguard.ErrFrameCrashed, Frame: "F1", URL: "http://x/", Detail: "oom"},
			http.StatusInternalServerError, "frame renderer crashed (reason: oom) in http://x/: POST /browser/reload"},
		{"a frame gone", &tabguard.BlockedError{Reason: tabguard.ErrFrameDetached, Frame: "F1", Detail: "no such frame in the tab"},
			http.StatusInternalServerError, "frame is detached: no such frame in the tab (frame F1): GET /browser/frames"},
		{"a frame's navigation", &tabguard.BlockedError{Reason: tabguard.ErrNavigated, Frame: "F1", URL: "http://x/"},
			http.StatusInternalServerError, "frame navigated away during the eval (now at http://x/): retry the call"},
		{"a frame the policy refuses", &frameURLError{frame: "F1", err: fmt.Errorf("%w: http://x/: its origin http://x is blocked", tabguard.ErrURLBlocked)},
			http.StatusForbidden, "frame F1: URL not allowed: http://x/: its origin http://x is blocked: the server reads no frame at a URL it does not open " +
				"(see -allow-schemes, -allowed-origins, -blocked-origins)"},
		{"a frame still loading", &frameLoadError{err: &tabguard.TimeoutError{Op: "frame eval", Limit: time.Second, Cause: tabguard.TimeoutLoading,
			Doing: "frame F1 still loading http://x/: its server never answered", Advice: "read the frames that loaded (Watcher.Frames)"}},
			http.StatusGatewayTimeout, "frame eval timed out after 1s (frame F1 still loading http://x/: its server never answered): GET /browser/frames for the frames that loaded"},
		{"a lazy frame", &frameLoadError{lazy: true, err: &tabguard.TimeoutError{Op: "frame eval", Limit: time.Second, Cause: tabguard.TimeoutLoading,
			Doing: "frame F1 never loaded a document", Advice: "scroll the iframe into view with Watcher.Eval"}},
			http.StatusGatewayTimeout, "frame eval timed out after 1s (frame F1 never loaded a document): " +
				"scroll the iframe into view with POST /browser/scroll, or GET /browser/frames for the frames that loaded"},
		{"other", errors.New("decode result: bad"), http.StatusInternalServerError, "decode result: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg := apiError(tt.err)
			if status != tt.status || msg != tt.want {
				t.Errorf("apiError() = %d, %q; want %d, %q", status, msg, tt.status, tt.want)
			}
			assert.NotContains(t, msg, "Watcher.", "the server's callers have endpoints, not Go calls")
			assert.NotContains(t, msg, "Options.")
		})
	}
}
