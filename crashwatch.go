package tabguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-rod/rod"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// ErrWatcherClosed reports a call on a [Watcher] after its Close.
var ErrWatcherClosed = tabstate.ErrWatcherClosed

// Options configures a [Watcher] or a [BrowserWatcher]. A nil *Options means
// all defaults.
type Options struct {
	// EvalTimeout bounds each Eval, DOM, Do, Wait, Navigate, Reload and
	// HandleDialog call whose context has no deadline; zero means
	// DefaultEvalTimeout. A context's deadline governs the call it is
	// given, sooner or later than EvalTimeout, as database/sql takes a
	// query's bound from its context, and its end answers the same
	// [*TimeoutError], with its cause. Watch's start is bounded by
	// EvalTimeout whatever its context.
	EvalTimeout time.Duration
	// Patience is how long the watcher waits, at least, for the browser or
	// the page to answer before the absence of an answer means something:
	// the probes of a call that timed out prove a hung renderer or a
	// silent link only when nothing answered them for that long, and the
	// watcher gives the page or the browser that long to act on what it
	// was told (a beforeunload handler to run, a download's first event, a
	// load to stop, a tab to close); an ambiguous reply waits a tenth of it
	// for the event that explains it. Over a link whose round trips take
	// longer, it is three round trips. Zero means DefaultPatience, 1 s:
	// Chrome answers in milliseconds on an idle machine, and in hundreds
	// under a load average of 20 on 2 cores; a program on a slower machine
	// sets more. A call whose deadline leaves its probes less than the
	// patience names no cause it could not prove (TimeoutUnknown).
	Patience time.Duration
	// Logger receives crashes, dialogs, refusals and timeouts; nil means silent.
	Logger *slog.Logger
	// TerminateOnTimeout makes an eval that times out while a script holds
	// the page's main thread (a while(true), a long synchronous loop) call
	// Runtime.terminateExecution before it returns, so the tab answers the
	// next eval. Without it a deadline stops only the wait: the script runs
	// on, and every later eval on the tab times out too. It is off by
	// default because it stops whatever script runs at that moment, the
	// page's own as well as the eval's, which may leave the page half
	// updated. Turn it on when the program owns the tab (a crawler, a test
	// runner) and a stuck script must not take the tab with it.
	TerminateOnTimeout bool
	// Dialogs says what happens to a JavaScript dialog (alert, confirm,
	// prompt, beforeunload): refused until handled (DialogRefuse, the
	// default), or accepted or dismissed as it opens.
	Dialogs DialogPolicy
	// DOMNotice words the line Watcher.DOM appends to a cut page; nil means
	// DefaultNotice. Set it when the cap reaches users under another name.
	DOMNotice Notice
	// Heartbeat, when above zero, makes the BrowserWatcher ask the browser
	// for its version (Browser.getVersion) at that interval, and fail every
	// watcher of the browser with ErrBrowserGone, calls in flight included,
	// when an answer does not come within the interval, or within three of
	// the slowest round trips the link has shown lately if that is longer:
	// a distant browser is never taken for a silent one. It
	// notices a connection gone silent, as behind a proxy that stops
	// forwarding, which no error reports otherwise, and it keeps an idle
	// session alive in pools that close connections with no traffic. Zero,
	// the default, sends nothing: for a browser on this machine the socket
	// itself tells when it ends. A BrowserWatcher has one heartbeat for all
	// its tabs; Watch, which serves one tab, runs one of its own.
	Heartbeat time.Duration
	// URLs, when set, is the policy Navigate and BrowserWatcher.Open check
	// a URL against before loading it; nil checks nothing.
	URLs *URLPolicy
	// AskBeforeClose makes Watcher.CloseTab ask the page first, as a user
	// closing the tab would (Page.close runs its beforeunload handlers). A
	// page that asks to stay keeps its tab: CloseTab returns at once a
	// [*BlockedError] with [ErrDialogOpen] and the detail "beforeunload",
	// and, under DialogRefuse, leaves the dialog open for
	// Watcher.HandleDialog. Off, the default, CloseTab closes the tab
	// anyway: Target.closeTarget runs no beforeunload handler, and a
	// beforeunload dialog that is open, or opens meanwhile, is accepted.
	AskBeforeClose bool
	// DownloadDir is where the browser saves the files its tabs download
	// (Browser.setDownloadBehavior, set once as the BrowserWatcher starts,
	// for the browser's default context), each named by its download's
	// GUID so that none overwrites another. Empty, the default, denies
	// every download, a navigation's or a script's: nothing is written,
	// where a browser left alone saves into its user's Downloads folder.
	// A navigation that becomes a download gives ErrDownload either way.
	DownloadDir string
	// MaxCapturePixels bounds a full-page Screenshot, in pixels: a page
	// larger than that is refused with ErrCaptureTooLarge, naming its
	// size, before Chrome paints it into one bitmap in the renderer. Zero
	// means DefaultMaxCapturePixels; below zero, no bound.
	MaxCapturePixels int64
	// PDFChunk is how many bytes of a PDF each read asks the browser for
	// (IO.read): the most any one message of a PDF carries. Zero means
	// DefaultPDFChunk, 64 KiB, which holds the heap to what a program
	// streaming 32 KiB chunks needs. A browser far away costs a round trip
	// a read: there, 1 MiB reads a large PDF several times quicker, for
	// some 6 MiB more of heap.
	PDFChunk int
	// InsecureHosts names the hosts whose certificate errors (untrusted,
	// expired, for another name) a watched tab ignores: each a host name or
	// IP address, with a port for that port only ("intranet.example",
	// "127.0.0.1:8443"); no scheme, path or wildcard, or Watch fails with
	// ErrInvalidArgument. Chrome then holds each of the tab's requests that
	// meets an untrusted certificate (Security.setOverrideCertificateErrors
	// on the tab's session, not the browser-wide switch): a named host's is
	// let through, any other's refused, and Navigate to it returns
	// ErrCertificate at once, naming the error and the host, while the tab
	// keeps its page. Chrome remembers a certificate it let through for
	// that host and port, browser-wide: any tab of the browser loads it
	// afterwards, named or not. Empty, the default, overrides nothing: the
	// browser refuses every untrusted certificate itself (ErrCertificate).
	InsecureHosts []string
	// Credentials, when set, answers each request for credentials (HTTP
	// authentication: a server's 401, a proxy's 407) of a document a
	// watched tab loads: its page or an iframe's. The tab holds the
	// document request (the Fetch domain, for documents only) until the
	// callback returns, under the eval timeout. Credentials it returns are
	// given once: when the server asks again, they were refused. No
	// credentials or an error gives none. Either way the server's own
	// answer (usually its 401 page) commits, and Navigate or Reload returns
	// ErrCredentialsRefused or ErrSignInRequired, naming the origin and
	// realm, never the credentials. nil, the default, enables nothing:
	// the browser refuses every sign-in itself (ErrSignInRequired), at no
	// cost to other loads. A sign-in asked for by a subresource, such as an
	// image, is refused either way.
	Credentials func(ctx context.Context, s SignIn) (Credentials, error)
	// Permissions grants browser permissions to origins. Every permission
	// a browser asks its user about (tabstate.PromptingPermissions: notifications,
	// geolocation, camera, microphone, local network access...) is denied
	// for every origin as the BrowserWatcher starts (Browser.setPermission,
	// for the browser's default context), so no page waits on a permission
	// bubble, which headed Chrome shows with no CDP event and leaves
	// pending; each grant then grants its names to its origin, and nothing
	// else is granted. A grant with an origin that is not scheme://host[:port]
	// or a name not in that list fails the watcher's start with
	// ErrInvalidArgument, before anything is sent; a grant the browser
	// refuses fails it with the browser's error. A denial the browser
	// refuses because it knows no such permission (an older Chrome, which
	// never asks for it) is skipped and logged at Info. Chrome keeps these
	// settings while the DevTools connection that set them is open.
	Permissions []PermissionGrant
	// FileChooser chooses the files of each file chooser a page opens (an
	// <input type=file> clicked): it is called once a chooser, in a
	// goroutine of the watcher's and under Options.EvalTimeout, and its
	// absolute paths are given to the input (DOM.setFileInputFiles), which
	// then fires its change event. An error, no path, several paths for an
	// input that takes one, or a relative path cancels the chooser instead.
	// nil, the default, cancels every chooser. Either way no tab ever shows
	// a native chooser, headed or not (Page.setInterceptFileChooserDialog,
	// sent as each tab is watched), and a guarded call (Eval, EvalFrame,
	// Do) in flight when a chooser is cancelled answers [ErrFileChooser].
	FileChooser func(ctx context.Context, c FileChooser) ([]string, error)
	// Console keeps each watched tab's console messages and uncaught
	// exceptions for Watcher.Console, and the last five in a
	// [*TimeoutError] or a [*BlockedError]: it enables the Runtime domain
	// on the tab's session as the tab is watched (Runtime.enable), and
	// leaves it on. An eval on a page that logs nothing costs the same
	// either way (BenchmarkConsole: the same bytes, the same median time);
	// the rest does not. Measured on Chromium 156, Watch reads 1-2 KB more (the
	// page's contexts, the messages its document logged so far, and a
	// round trip that waits for them), a navigation 1.4 KB more (12.7
	// against 11.2 KB to network idle), and every console call of the page
	// crosses the wire with a preview of its arguments, some 700 bytes for
	// console.log("line", i, {i, even}): a page that logs in a loop sends
	// that much for each line, and its renderer builds each preview. Off,
	// the default, sends nothing and keeps nothing, unless another client
	// of the tab's session enabled the domain.
	Console bool
	// Advice, when set, words the remedy every error names in the
	// program's own terms, for errors shown to people or agents who call
	// something else than this package: an MCP server's tools, an HTTP
	// service's endpoints. nil keeps the default, which names this
	// package's calls.
	Advice *Advice
	// Trace, when set, is told of each guarded call as it starts and ends
	// (which call, on which tab, how it ended and in how long), of each
	// change of a tab, of each script TerminateOnTimeout stops and of each
	// heartbeat missed: see package tabtrace, and the otelguard module for
	// OpenTelemetry. nil, the default, costs nothing.
	Trace *tabtrace.Trace
}

// Watcher follows one tab through its CDP events and evaluates on it with a
// deadline, refusing up front when the tab cannot answer. Its methods are
// safe for concurrent use.
type Watcher struct {
	bw    *BrowserWatcher
	owned bool      // bw was started for this watcher alone
	page  *rod.Page // the page as the program passed it
	t     *engine.Tab
}

// Watch starts following page and returns a Watcher that evaluates on it.
// opts may be nil. The caller should call Close when finished.
//
// Watch subscribes to the browser's events for this tab alone, then learns
// the tab's current state (see [Watcher] for what it asks). A program that
// watches many tabs of one browser should use [WatchBrowser]: each Watch
// costs a subscription to the browser's whole event stream and a goroutine
// that reads it, where a BrowserWatcher has one of each for all its tabs.
//
// Watch enables the Inspector and Network domains on the tab's session (and
// leaves them on, since other subscribers may rely on them). A tab that
// crashed before Watch is reported, because Chrome answers Inspector.enable
// on a crashed target with Inspector.targetCrashed. Watch reads the current
// URL from the browser side, which answers even when the renderer does not.
// It returns within a few milliseconds on a healthy tab; on a tab whose
// renderer is busy (a runaway script, an open dialog) it gives up asking
// the renderer at Options.EvalTimeout, which bounds the whole start: a
// browser that does not answer by then gives a [*TimeoutError] that names
// the call it did not answer. A JavaScript dialog that opened before
// Watch cannot be learned under DialogRefuse (Chrome replays no event for
// it), so evals then time out as on a busy page; under DialogAccept or
// DialogDismiss, Watch handles it.
//
// The watcher lives until Close or the tab's end, whatever deadline the
// page carries: Watch(page.Timeout(d)) and Watch(page) are the same.
//
// A nil page gives [ErrInvalidArgument]; a closed tab, or a browser that went
// away, gives a [*BlockedError] with [ErrTabClosed] or [ErrBrowserGone].
func Watch(page *rod.Page, opts *Options) (*Watcher, error) {
	if err := checkPage(page); err != nil {
		return nil, err
	}
	bw, err := WatchBrowser(page.Browser(), opts)
	if err != nil {
		return nil, err
	}
	w, err := bw.watch(context.Background(), page, true)
	if err != nil {
		_ = bw.Close()
		return nil, err
	}
	return w, nil
}

func checkPage(page *rod.Page) error {
	if page == nil || page.GetContext() == nil || page.Browser() == nil {
		return fmt.Errorf("%w: nil or unconnected page: pass a page from a connected rod.Browser", ErrInvalidArgument)
	}
	if errors.Is(page.GetContext().Err(), context.Canceled) { // rod ends a page's session so
		return &BlockedError{Reason: ErrTabClosed}
	}
	return nil
}

// watch makes a Watcher of page fed by bw, learning its state within
// Options.EvalTimeout and ctx, the caller's (a page's own deadline bounds
// nothing: see Watch); owned says bw is its own.
func (bw *BrowserWatcher) watch(ctx context.Context, page *rod.Page, owned bool) (*Watcher, error) {
	if err := checkPage(page); err != nil {
		return nil, err
	}
	t, err := bw.eng.Watch(engine.TabHandle{
		Session:   session{browser: page.Browser(), id: string(page.SessionID)},
		TargetID:  string(page.TargetID),
		SessionID: string(page.SessionID),
		// rod decodes every event, Security.certificateError among them.
		CertificateErrors: true,
		// The watcher lives until Close, not until a deadline the program
		// gave the page (page.Timeout): the tab's end comes as an event.
		Life:  context.WithoutCancel(page.GetContext()),
		Start: ctx,
	})
	if err != nil {
		return nil, err
	}
	return &Watcher{bw: bw, owned: owned, page: page, t: t}, nil
}

// State returns what the watcher knows of the tab now. It makes no CDP call,
// so it may trail a change that a call made a moment ago: [Watcher.Blocked]
// and every guarded call see such a change.
func (w *Watcher) State() TabState { return w.t.State() }

// Blocked reports whether an eval on the tab would be refused now: nil, or
// the [*BlockedError] that [Watcher.Eval] would return, or [ErrWatcherClosed],
// or ctx.Err() when ctx is already done. It makes no CDP call on a tab the
// events say is healthy. Before it reports a refusal that a recovery may
// have ended (a crash, a failed load, a dialog, a pause), it makes sure
// every event Chrome sent so far has been applied, so a recovery made by
// any call that has returned shows at once.
func (w *Watcher) Blocked(ctx context.Context) error { return w.t.Blocked(ctx) }

// Close stops following the tab, fails calls still in flight with
// [ErrWatcherClosed], and waits for the watcher's goroutines to return. It
// leaves the tab itself alone, and hands back what the watcher set on it:
// requests it held go on, file choosers open as Chrome opens them, and
// documents loaded after it have their own print. It does not wait for Chrome's answers to
// what it hands back: the BrowserWatcher's Close (which the Close of a
// Watcher from [Watch] makes) waits for them, each within
// Options.EvalTimeout. Calling Close again does nothing.
func (w *Watcher) Close() error {
	w.t.Close()
	if w.owned {
		return w.bw.Close()
	}
	return nil
}
