package engine

import "context"

// Session sends CDP commands on one DevTools session: the browser's, or a
// tab's. Both rod and chromedp have one in a few lines; cdproto's
// cdp.Session has this method.
type Session interface {
	// Call sends method with params (nil: none) and decodes the result
	// into result (nil: drop it). params and result are this package's
	// structs, tagged for encoding/json (which they also round-trip
	// through chromedp's jsonv2). Call returns promptly once ctx ends, with
	// ctx's error or a driver error that Classify reads.
	Call(ctx context.Context, method string, params, result any) error
}

// Driver is what a backend provides for one browser: its browser session,
// and what its errors mean.
type Driver interface {
	Session
	// Classify says what an error of the driver means. It is called on
	// error paths only.
	Classify(err error) Failure
}

// Syncer is a [Driver] whose replies can overtake the events Chrome sent
// before them, as rod's are (rod fans events out through goroutines, and
// hands replies straight to the caller). Sync returns once every event
// Chrome sent before it was called has been pushed into the engine. The
// engine calls it only before a refusal that a recovery may have made
// stale, never on the healthy path.
type Syncer interface {
	Sync(ctx context.Context) error
}

// LossPoller is a [Driver] that may end calls before it reports its
// connection lost, as chromedp does (it cancels every context of a lost
// browser, and a call then ends with a bare context.Canceled). Lost
// reports, without blocking and without a CDP call, whether the connection
// is lost; the engine then learns why with [Browser.LostReason].
type LossPoller interface {
	Lost() bool
}

// LoadFailer is a [Driver] whose library turns a navigation that Chrome
// did not commit into an error of its own: rod's Navigate answers a
// *rod.NavigationError, chromedp's a load error. LoadFailure returns
// Chrome's error text from such an error, as "net::ERR_ABORTED", which a
// navigation that became a download gets before the download's first
// event: a program's call that failed so waits for that event.
type LoadFailer interface {
	LoadFailure(err error) (errorText string, ok bool)
}

// FailureKind is what a driver error means.
type FailureKind uint8

const (
	// Other is any error the engine passes through as it is.
	Other FailureKind = iota
	// Protocol is Chrome's answer to a command: Code and Message.
	Protocol
	// Detached means the session the call went to is gone.
	Detached
	// Lost means the connection to the browser is gone; Reason says why.
	Lost
	// Exception is a script's JavaScript exception; Message is its text,
	// such as "TypeError: Failed to fetch".
	Exception
)

// Failure is what [Driver.Classify] found in an error.
type Failure struct {
	Kind    FailureKind
	Code    int64  // for Protocol
	Message string // for Protocol and Exception
	Reason  string // for Lost
}

// TabHandle is a tab as the driver holds it, to watch with [Browser.Watch].
type TabHandle struct {
	// Session sends commands on the tab's session.
	Session Session
	// TargetID is the tab's target, which is also its main frame's ID.
	TargetID string
	// SessionID is the tab's session, by which the driver routes its
	// events ([Browser.Tab]).
	SessionID string
	// Start, when set, bounds Watch's calls with the eval timeout (the
	// caller's context of an Open); nil means Life.
	Start context.Context
	// Life is the context the tab's session lives in: the calls the engine
	// makes of its own accord end with it, and when it ends with the
	// session, Watch reports the tab closed.
	Life context.Context
	// NetworkEnabled says the driver enabled the Network domain on the
	// session itself; otherwise Watch enables it (for Network.loadingFailed).
	NetworkEnabled bool
	// CertificateErrors says the driver hands Security.certificateError
	// to the Tab, which Config.InsecureHosts needs.
	CertificateErrors bool
	// Listen, when set, subscribes to the tab's events until ctx ends and
	// pushes them into t with [Tab.Apply]; Watch calls it before its first
	// probe. nil means the driver routes the tab's events itself
	// ([Browser.Tab]).
	Listen func(ctx context.Context, t *Tab) error
}

// TargetInfo is Chrome's Target.TargetInfo, the fields the registry uses.
type TargetInfo struct {
	TargetID string `json:"targetId"`
	Type     string `json:"type"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Attached bool   `json:"attached"`
	OpenerID string `json:"openerId,omitempty"`
	// ParentID and ParentFrameID are set for an out-of-process iframe's
	// target: the page target, and the frame, that hold it.
	ParentID      string `json:"parentId,omitempty"`
	ParentFrameID string `json:"parentFrameId,omitempty"`
	// BrowserContextID is the browser context the target lives in (an
	// incognito one from Target.createBrowserContext, or the default).
	BrowserContextID string `json:"browserContextId,omitempty"`
}
