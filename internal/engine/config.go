package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// Config is a backend's Options, and what the backend words its own way.
type Config struct {
	// EvalTimeout bounds each guarded call; zero means
	// tabstate.DefaultEvalTimeout.
	EvalTimeout time.Duration
	// Logger receives crashes, dialogs, refusals and timeouts; nil means silent.
	Logger *slog.Logger
	// TerminateOnTimeout stops a script that holds the page when a call
	// times out on it.
	TerminateOnTimeout bool
	// Dialogs is the dialog policy.
	Dialogs tabstate.DialogPolicy
	// Notice words the line DOM appends to a cut page; nil means DefaultNotice.
	Notice func(shown, size, maxBytes int) string
	// Heartbeat, above zero, asks the browser for its version at that
	// interval and fails every tab when an answer does not come.
	Heartbeat time.Duration
	// URLs is the policy Navigate and Open check a URL against; nil checks nothing.
	URLs *tabstate.URLPolicy
	// AskBeforeClose makes CloseTab ask the page first: a page that asks
	// to stay keeps its tab, and CloseTab refuses with ErrDialogOpen.
	AskBeforeClose bool
	// DownloadDir is where the browser saves downloads; empty denies them.
	DownloadDir string
	// MaxCapturePixels bounds a full-page screenshot in device pixels;
	// zero means tabstate.DefaultMaxCapturePixels, below zero no bound.
	MaxCapturePixels int64
	// PDFChunk is how many bytes of a PDF each IO.read asks for; zero
	// means tabstate.DefaultPDFChunk.
	PDFChunk int
	// InsecureHosts are the hosts whose certificate errors a tab ignores;
	// any other host's are refused (certificates.go).
	InsecureHosts []string
	// Credentials, when set, answers each server's request for
	// credentials of a tab's documents; nil leaves them to the browser,
	// which refuses them (signin.go).
	Credentials func(ctx context.Context, s tabstate.SignIn) (tabstate.Credentials, error)
	// Permissions are granted as the browser starts; every other prompting
	// permission is denied (permissions.go).
	Permissions []tabstate.PermissionGrant
	// FileChooser chooses the files of each file chooser a page opens;
	// nil cancels every chooser.
	FileChooser func(ctx context.Context, c tabstate.FileChooser) ([]string, error)
	// Console enables the Runtime domain on each tab, whose events carry
	// its console messages and uncaught exceptions (console.go), for a
	// driver that does not enable it itself.
	Console bool

	// Calls names the backend's own calls in advice.
	Calls Calls
	// Advice, when set, words the remedies the program's way.
	Advice *tabstate.Advice
	// Exception is the backend's error for a JavaScript exception in a
	// script the engine runs (a DOM read), from Chrome's exceptionDetails;
	// nil gives a plain error with its text.
	Exception func(details json.RawMessage) error
	// Sink takes the changes of the browser's tabs; nil drops them.
	Sink Sink
	// Trace, when set, is told of each guarded call, each change of a tab,
	// each script stopped and each heartbeat missed.
	Trace *tabtrace.Trace
	// DiscoverTargets makes the Browser ask for the browser-wide target
	// events (Target.setDiscoverTargets) when it starts, for a driver that
	// does not ask for them on every connection.
	DiscoverTargets bool
	// Patience is how long the engine waits, at least, for the browser or
	// the page to answer or act before the absence of an answer means
	// something; zero means tabstate.DefaultPatience (see patience).
	Patience time.Duration
	// EventGrace is how long an ambiguous reply waits for the event that
	// explains it; zero means a tenth of the patience, 100 ms by default.
	// Chrome sends that event within milliseconds of the reply; a driver
	// whose events cross a loaded machine may want longer.
	EventGrace time.Duration
}

// grace is the configured event grace, or a tenth of the patience.
func (c *Config) grace() time.Duration {
	if c.EventGrace <= 0 {
		return c.patience() / 10
	}
	return c.EventGrace
}

// patience is how long the engine waits, at least, for the page or the
// browser to answer or to act on what it was told before the absence of
// an answer or an event means something: an interrupt to a renderer that
// may hang (the probes' proof), a beforeunload handler to run, a
// download's first event, a load to stop, a tab to close, a discarded
// tab's replacement. It is Config.Patience (1 s by default), which a
// program on a slow machine lengthens. It is a property of the machine,
// not of a call: a call whose deadline leaves its probes less proves
// nothing by what did not answer. Browser.due lengthens it on a link whose
// round trips take longer.
func (c *Config) patience() time.Duration {
	if c.Patience <= 0 {
		return tabstate.DefaultPatience
	}
	return c.Patience
}

// patience is the engine's patience as the link stretches it: linkMargin
// of the link's round trip when that is longer (Browser.due). It is also
// the probes' window: how long the probes that tell why a call did not
// answer need to prove what did not answer (clock.go).
func (b *Browser) patience() time.Duration { return b.due(b.cfg.patience()) }

// timeout is the configured eval timeout, or the default.
func (c *Config) timeout() time.Duration {
	if c.EvalTimeout <= 0 {
		return tabstate.DefaultEvalTimeout
	}
	return c.EvalTimeout
}

// pdfChunk is the configured PDF chunk, or the default, 64 KiB, which
// BenchmarkPDFChunk chose: the Go heap's peak of a program that streams in
// 32 KiB chunks, in the same time on a local browser.
func (c *Config) pdfChunk() int {
	if c.PDFChunk <= 0 {
		return tabstate.DefaultPDFChunk
	}
	return c.PDFChunk
}

// maxCapturePixels is the configured bound of a full-page screenshot, or
// the default; zero means none.
func (c *Config) maxCapturePixels() int64 {
	switch {
	case c.MaxCapturePixels < 0:
		return 0
	case c.MaxCapturePixels == 0:
		return tabstate.DefaultMaxCapturePixels
	}
	return c.MaxCapturePixels
}

// Calls are a backend's names of the CDP calls a timeout's advice names,
// such as "proto.PageBringToFront", or empty for the CDP method alone.
type Calls struct {
	BringToFront, SetWebLifecycleState string
}

// advice names the call that ends a timeout's cause, if any: the CDP
// method, with the backend's own name for it when it has one.
func (c *Config) advice(cause tabstate.TimeoutCause) string {
	if r, ok := c.Advice.Timeout(cause); ok {
		return r
	}
	switch cause {
	case tabstate.TimeoutHidden:
		return "Page.bringToFront" + named(c.Calls.BringToFront) + " shows it"
	case tabstate.TimeoutFrozen:
		return "resume it with Page.setWebLifecycleState active" + named(c.Calls.SetWebLifecycleState)
	case tabstate.TimeoutBusyScript:
		return "stop it with Watcher.Recover, which keeps the page, or set Options.TerminateOnTimeout"
	case tabstate.TimeoutHung:
		return "Watcher.Recover dismisses a dialog, or crashes the renderer and reloads the tab, keeping its history"
	case tabstate.TimeoutSilent:
		return "set Options.Heartbeat to notice a silent connection and fail at once"
	case tabstate.TimeoutNavigating:
		return "stop the load with Watcher.Recover, which keeps the page, or wait for it with a later deadline (Watcher.Wait)"
	case tabstate.TimeoutUnknown:
		return "Watcher.Recover asks the page why, and acts only on what it finds"
	}
	return ""
}

// named is a backend's name of a call, in parentheses after the method.
func named(call string) string {
	if call == "" {
		return ""
	}
	return " (" + call + ")"
}
