package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// errUnknownTab is the 400 answer for a tab ID the server does not know.
var errUnknownTab = errors.New("unknown tab")

// apiError words err for a caller of this server: the problem, short, and
// the endpoint that fixes it, with its HTTP status (see writeError). The library's own
// advice names its Go calls, which an HTTP caller does not have.
func apiError(err error) (int, string) {
	var (
		be   *tabguard.BlockedError
		te   *tabguard.TimeoutError
		bad  *badRequestError
		load *loadError
		fu   *frameURLError
		fl   *frameLoadError
	)
	switch {
	case errors.As(err, &load):
		status, msg := apiError(load.err)
		if load.within > 0 {
			// The load timeout ended it, whichever step it was in.
			status = http.StatusGatewayTimeout
		}
		return status, load.prefix() + msg
	case errors.As(err, &bad), errors.Is(err, errUnknownTab), errors.Is(err, tabguard.ErrInvalidArgument):
		return http.StatusBadRequest, err.Error()
	case errors.As(err, &fu):
		return http.StatusForbidden, err.Error() + ": the server reads no frame at a URL it does not open (see -allow-schemes, -allowed-origins, -blocked-origins)"
	case errors.Is(err, tabguard.ErrURLBlocked):
		return http.StatusForbidden, err.Error() + ": the server does not open it (see -allow-schemes, -allowed-origins, -blocked-origins)"
	case errors.Is(err, tabguard.ErrNoDialog):
		return http.StatusConflict, "no JavaScript dialog is open: nothing to handle"
	case isAction(err):
		status, msg, _ := actionStatus(err)
		return status, msg
	case errors.As(err, &be) && be.Reason == tabguard.ErrFileChooser:
		return http.StatusInternalServerError, chooserProblem(be) + ": " + advice(be)
	case errors.As(err, &be):
		return http.StatusInternalServerError, be.Problem() + ": " + advice(be)
	case errors.As(err, &fl) && errors.As(err, &te):
		return http.StatusGatewayTimeout, te.Problem() + ": " + fl.advice()
	case errors.As(err, &te):
		if a := timeoutAdvice(te.Cause); a != "" {
			return http.StatusGatewayTimeout, te.Problem() + ": " + a
		}
		return http.StatusGatewayTimeout, te.Problem()
	}
	return http.StatusInternalServerError, err.Error()
}

// loadError is a failed page load of POST /browser/tabs: the tab is open,
// and the error says which URL did not load.
type loadError struct {
	url    string
	within time.Duration // the load timeout, when that is what ended the load
	err    error
}

// prefix names the URL, with any password in it masked: an answer may be
// logged, and the URL's own credentials are not the error's to repeat.
func (e *loadError) prefix() string {
	u := e.url
	if p, err := url.Parse(u); err == nil {
		if _, ok := p.User.Password(); ok {
			u = p.Redacted()
		}
	}
	if e.within > 0 {
		return fmt.Sprintf("load %s: not loaded within %v: ", u, e.within)
	}
	return "load " + u + ": "
}

func (e *loadError) Error() string { return e.prefix() + e.err.Error() }
func (e *loadError) Unwrap() error { return e.err }

// timeoutAdvice names the endpoint that ends what held a call past its
// deadline, if any. The server stops runaway scripts itself
// (TerminateOnTimeout), so a busy script needs nothing but a retry.
func timeoutAdvice(cause tabguard.TimeoutCause) string {
	switch cause {
	case tabguard.TimeoutHung:
		return "POST /browser/dialog if a dialog is open; otherwise POST /browser/close and open a new tab with POST /browser/tabs"
	case tabguard.TimeoutSilent:
		return "the server's browser does not answer: restart the server"
	case tabguard.TimeoutBusyScript, tabguard.TimeoutLoading, tabguard.TimeoutUnknown:
		return "retry the call"
	}
	return ""
}

// advice names the endpoint that ends a refusal: promptAdvice's remedy
// when the watcher set one, and otherwise its own. An iframe whose page
// failed to load, or whose own renderer crashed, comes back when the tab
// reloads; one the tab does not have is not called again, and the list
// says which it has. A load stopped at a prompt (sign-in, a certificate)
// meets the same prompt on a reload, and the server has no credentials or
// certificates to give: only another page helps, or for an iframe, the
// tab's other frames.
func advice(be *tabguard.BlockedError) string {
	if be.Remedy != "" {
		return be.Remedy // promptAdvice's, set by the watcher
	}
	if why, ok := prompted(be.Reason, be.Frame != ""); ok {
		if be.Frame != "" {
			return why + ": GET /browser/frames for the tab's other frames"
		}
		return why + ": POST /browser/navigate to another page"
	}
	switch be.Reason {
	case tabguard.ErrTabCrashed, tabguard.ErrFrameCrashed:
		return "POST /browser/reload"
	case tabguard.ErrNoDocument:
		if be.Frame != "" {
			return "POST /browser/reload"
		}
		return "POST /browser/navigate, or POST /browser/reload to try the same URL"
	case tabguard.ErrFrameDetached:
		return "GET /browser/frames"
	case tabguard.ErrDialogOpen:
		return "POST /browser/dialog"
	case tabguard.ErrTabClosed, tabguard.ErrTabDiscarded:
		return "open a new tab with POST /browser/tabs"
	case tabguard.ErrBrowserGone:
		return "the server has lost its browser: restart it"
	case tabguard.ErrPaused:
		return "a debugger paused the page: resume it there"
	case tabguard.ErrNavigated, tabguard.ErrTerminated:
		return "retry the call"
	case tabguard.ErrDownload:
		// The server sets no download directory: the browser denies every download.
		return "the page was not left and still answers: the server saves no downloads"
	}
	return "GET /browser/tabs"
}

// prompted says why the server cannot get past the prompt that stopped a
// load with reason, a tab's or an iframe's, if one did.
func prompted(reason error, frame bool) (string, bool) {
	whose := "the "
	if frame {
		whose = "the iframe's "
	}
	switch reason {
	case tabguard.ErrSignInRequired:
		return whose + "page needs credentials the server does not have", true
	case tabguard.ErrCertificate:
		return "the server cannot accept a certificate the browser refuses", true
	case tabguard.ErrClientCertificate:
		return whose + "site asks for a client certificate the server does not have", true
	}
	return "", false
}

// promptAdvice words, for the watchers, the remedies of the prompts the
// server may get past with POST /browser/prompt, which depend on pc, what
// the server is configured with: its credentials and its upload directory.
// A reason it leaves out is worded by advice.
func promptAdvice(pc agentprompt.Config) *tabguard.Advice {
	chooser := "the page was told no file was chosen: the server has no upload directory, so it gives pages no files"
	if pc.UploadDir != "" {
		chooser = "the page was told no file was chosen: POST /browser/prompt with kind file_chooser and files from the upload directory (one for an input that takes one), then POST /browser/click on the input again"
	}
	a := &tabguard.Advice{
		Refused: map[error]string{
			tabguard.ErrCredentialsRefused: "the site refused the credentials the server has for it, which only the server's operator can change: POST /browser/navigate to another page",
			tabguard.ErrFileChooser:        chooser,
			tabguard.ErrLocalNetworkDenied: "the server lets no page reach this machine or the local network, and the tab still answers: POST /browser/navigate to another page",
		},
		FrameRefused: map[error]string{
			tabguard.ErrCredentialsRefused: "the iframe's site refused the credentials the server has for it, which only the server's operator can change: GET /browser/frames for the tab's other frames",
		},
	}
	if len(pc.Credentials) > 0 {
		a.Refused[tabguard.ErrSignInRequired] = "POST /browser/prompt with kind sign_in and the origin named here, then POST /browser/navigate again; without credentials for it, POST /browser/navigate to another page"
		a.FrameRefused[tabguard.ErrSignInRequired] = "POST /browser/prompt with kind sign_in and the origin named here, then POST /browser/reload; without credentials for it, GET /browser/frames for the tab's other frames"
	}
	return a
}

// chooserProblem is the problem of be, a cancelled file chooser, in the
// server's terms: the input's mode, and why the files POST /browser/prompt
// gave were not used, rather than the library's option names.
func chooserProblem(be *tabguard.BlockedError) string {
	mode, why, _ := strings.Cut(be.Detail, ": ")
	c := *be
	switch {
	case strings.HasSuffix(why, "files for a single-file input"):
		c.Detail = mode + ": it takes one file, and POST /browser/prompt gave several"
	case why != "":
		c.Detail = mode + ": no files were given with POST /browser/prompt"
	default:
		c.Detail = mode
	}
	return c.Problem()
}
