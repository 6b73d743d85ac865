package chromedpguard

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabtrace"
)

// Options configures a [Watcher] or a [BrowserWatcher]. A nil *Options
// means all defaults.
type Options struct {
	// EvalTimeout bounds each Eval, Do, DOM, ReadDOM, Wait, Navigate,
	// Reload, HandleDialog and guarded call whose context has no deadline; zero means
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
	// was told; an ambiguous reply waits a tenth of it for the event that
	// explains it. Over a link whose round trips take longer, it is three
	// round trips. Zero means DefaultPatience, 1 s; a program on a slower
	// machine sets more. A call whose deadline leaves its probes less names
	// no cause it could not prove (TimeoutUnknown).
	Patience time.Duration
	// Logger receives crashes, dialogs, refusals and timeouts; nil means silent.
	Logger *slog.Logger
	// TerminateOnTimeout makes an eval that times out while a script holds
	// the page's main thread call Runtime.terminateExecution before it
	// returns, so the tab answers the next eval. It stops whatever script
	// runs then, the page's own too, so it is off by default.
	TerminateOnTimeout bool
	// Dialogs says what happens to a JavaScript dialog: refused until
	// handled (DialogRefuse, the default), or accepted or dismissed as it
	// opens.
	Dialogs DialogPolicy
	// DOMNotice words the line Watcher.DOM appends to a cut page; nil means
	// DefaultNotice.
	DOMNotice Notice
	// Heartbeat, when above zero, makes the BrowserWatcher ask the browser
	// for its version (Browser.getVersion) at that interval, and fail every
	// watcher with ErrBrowserGone, calls in flight included, when an answer
	// does not come within the interval, or within three of the slowest
	// round trips the link has shown lately if that is longer: it notices a
	// connection gone silent, and keeps an idle session alive in pools that
	// close idle connections. Zero, the default, sends nothing.
	Heartbeat time.Duration
	// URLs, when set, is the policy Navigate checks a URL against before
	// loading it; nil checks nothing.
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
	// InsecureHosts would name the hosts whose certificate errors a tab
	// ignores, as the rod backend's Options.InsecureHosts does. It needs
	// Chrome's Security.certificateError, which no cdproto release decodes,
	// so chromedp drops it: set, Watch fails with ErrInvalidArgument.
	// Trust the hosts' certificates where the browser runs instead.
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

// Watcher follows one chromedp tab through its CDP events and calls it with
// a deadline, refusing up front when the tab cannot answer and cutting calls
// in flight short when it stops answering. Its methods are safe for
// concurrent use. The caller should call Close when finished.
type Watcher struct {
	bw     *BrowserWatcher
	owned  bool // bw was started for this watcher alone
	target *chromedp.Target
	// ctx is the tab's chromedp context, for chromedp.Run (Context).
	ctx context.Context
	// detached is chromedp's channel of the tab's detach (chromedp.Detached):
	// its identity tells the tab's contexts from others.
	detached <-chan struct{}
	// release ends a tab context the watcher made itself (Open,
	// WatchTarget), detaching from the tab and leaving it open; nil for
	// a context of the program's.
	release context.CancelFunc
	t       *engine.Tab
}

// Watch starts following the tab of ctx, a chromedp context (from
// chromedp.NewContext) whose browser runs, and returns a Watcher that calls
// it. A context whose tab is not open yet gets it opened, as chromedp.Run
// does. opts may be nil. The caller should call Close when finished.
//
// Watch follows the browser's events for this tab alone; a program that
// watches many tabs of one browser should use [WatchBrowser], which has one
// listener for all of them. A tab that crashed before Watch is reported:
// Chrome answers Inspector.enable on a crashed target with
// Inspector.targetCrashed.
func Watch(ctx context.Context, opts *Options) (*Watcher, error) {
	if err := open(ctx); err != nil {
		return nil, err
	}
	bw, err := WatchBrowser(ctx, opts)
	if err != nil {
		return nil, err
	}
	w, err := bw.watch(ctx, ctx, true)
	if err != nil {
		_ = bw.Close()
		return nil, err
	}
	return w, nil
}

// open opens the tab of ctx if it has none, as chromedp.Run does.
func open(ctx context.Context) error {
	if ctx == nil || chromedp.FromContext(ctx) == nil {
		return fmt.Errorf("%w: not a chromedp context: pass one from chromedp.NewContext", ErrInvalidArgument)
	}
	if err := chromedp.Do(ctx); err != nil {
		return fmt.Errorf("watch tab: open it: %w", err)
	}
	return nil
}

// State returns what the watcher knows of the tab now. It makes no CDP call.
func (w *Watcher) State() TabState { return w.t.State() }

// TargetID is the watched tab's target: what [BrowserWatcher.Tabs] lists it by.
func (w *Watcher) TargetID() target.ID { return w.target.TargetID }

// Context is the tab's chromedp context, for chromedp.Run and
// [Watcher.Do]: the context Watch was given, or the one [BrowserWatcher.Open]
// and [BrowserWatcher.WatchTarget] attached with, which ends with Close.
func (w *Watcher) Context() context.Context { return w.ctx }

// Blocked reports whether an eval on the tab would be refused now: nil, or
// the [*BlockedError] that [Watcher.Eval] would return, or
// [ErrWatcherClosed], or ctx.Err() when ctx is already done. It makes no
// CDP call. A recovery made by any call on the tab's session that has
// returned already shows: chromedp applies the events Chrome sent before a
// reply before the reply returns.
func (w *Watcher) Blocked(ctx context.Context) error { return w.t.Blocked(ctx) }

// Close stops following the tab, fails calls still in flight with
// [ErrWatcherClosed], and waits for the watcher's goroutines to return. It
// leaves the tab itself alone: cancel its chromedp context, or call
// [Watcher.CloseTab], to close it. It hands back what the watcher set on
// the tab: requests it held go on, file choosers open as Chrome opens
// them, and documents loaded after it have their own print. It does not wait for Chrome's answers to
// what it hands back: the BrowserWatcher's Close (which the Close of a
// Watcher from [Watch] makes) waits for them, each within
// Options.EvalTimeout. Calling Close again does nothing.
func (w *Watcher) Close() error {
	w.t.Close()
	if w.release != nil {
		w.release()
	}
	if w.owned {
		return w.bw.Close()
	}
	return nil
}

// watch makes a Watcher of the tab of ctx, which is open, fed by bw,
// learning its state within start and Options.EvalTimeout; owned says bw
// is its own.
func (bw *BrowserWatcher) watch(ctx, start context.Context, owned bool) (*Watcher, error) {
	if chromedp.FromContext(ctx).Browser != bw.browser {
		return nil, fmt.Errorf("%w: a tab of another browser: watch it with that browser's BrowserWatcher", ErrInvalidArgument)
	}
	tgt, err := chromedp.Run(ctx, func(_ context.Context, t *chromedp.Target) (*chromedp.Target, error) { return t, nil })
	if err != nil {
		return nil, fmt.Errorf("watch tab: %w", err)
	}
	detached, err := chromedp.Detached(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch tab: %w", err)
	}
	t, err := bw.eng.Watch(engine.TabHandle{
		Session:   tgt,
		TargetID:  string(tgt.TargetID),
		SessionID: string(tgt.SessionID),
		// The watcher lives until Close, not until a deadline of ctx.
		Life:           context.WithoutCancel(ctx),
		Start:          ctx,  // the start is the caller's to bound
		NetworkEnabled: true, // chromedp enables it when it attaches
		Listen: func(life context.Context, t *engine.Tab) error {
			return chromedp.Listen(life, func(ev any) {
				if e, ok := pageEvent(ev); ok {
					t.Apply(e)
				}
			})
		},
	})
	if err != nil {
		return nil, err
	}
	return &Watcher{bw: bw, owned: owned, target: tgt, ctx: ctx, detached: detached, t: t}, nil
}
