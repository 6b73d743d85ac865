package tabstate

import "encoding/json"

// Event is one CDP event that bears on a tab's health: one of the types
// below. Page-session events belong to the tab whose session they came on;
// the browser-session ones name their tab by TargetID or SessionID.
type Event interface{ isEvent() }

// TargetCrashed is Inspector.targetCrashed (page session, no status) or
// Target.targetCrashed (browser session, with TargetID and Status such as
// "crashed", "killed" or "oom"): the tab's renderer died.
type TargetCrashed struct{ TargetID, Status string }

// ReloadedAfterCrash is Inspector.targetReloadedAfterCrash: a navigation
// gave the crashed tab a new renderer. Chrome sends it before the reply to
// the Page.navigate or Page.reload that did it.
type ReloadedAfterCrash struct{}

// NavigationStarted is Page.frameStartedNavigating: a frame started a
// navigation, whoever asked for it (Page.navigate, Page.reload,
// location.href, history). Chrome sends it before the reply to
// Page.navigate or Page.reload. Type is Chrome's navigationType, such as
// "differentDocument", "reload" or "sameDocument".
type NavigationStarted struct{ FrameID, LoaderID, URL, Type string }

// FrameNavigated is Page.frameNavigated: a frame committed a document. A
// main frame has no ParentID. UnreachableURL is set when Chrome's error
// page committed in place of that URL.
type FrameNavigated struct {
	FrameID, ParentID, LoaderID      string
	URL, URLFragment, UnreachableURL string
}

// StoppedLoading is Page.frameStoppedLoading: the frame loads nothing, so
// a navigation that started and did not commit was abandoned (a dismissed
// beforeunload dialog ends one so, with no network event).
type StoppedLoading struct{ FrameID string }

// LoadFired is Page.loadEventFired: the main frame's document loaded.
type LoadFired struct{}

// NavigatedWithinDocument is Page.navigatedWithinDocument: the URL changed
// without a new document (an anchor, the History API).
type NavigatedWithinDocument struct{ FrameID, URL string }

// LoadingFailed is Network.loadingFailed. For a document, RequestID is the
// navigation's loader ID. Canceled is set when the load was stopped or
// replaced rather than failed.
type LoadingFailed struct {
	RequestID, ErrorText string
	Canceled             bool
	// CORSError is Chrome's corsErrorStatus.corsError, such as
	// "LocalNetworkAccessPermissionDenied", when CORS blocked the request.
	CORSError string
}

// DialogOpening is Page.javascriptDialogOpening: Type is "alert",
// "confirm", "prompt" or "beforeunload".
type DialogOpening struct{ Type, Message, DefaultPrompt string }

// DialogClosed is Page.javascriptDialogClosed.
type DialogClosed struct{}

// Paused is Debugger.paused, with Chrome's reason such as "other".
type Paused struct{ Reason string }

// Resumed is Debugger.resumed.
type Resumed struct{}

// Detached is Target.detachedFromTarget (browser session, SessionID) or
// Target.targetDestroyed (TargetID): the tab is closed to its watcher.
type Detached struct{ TargetID, SessionID string }

// Discarded is no single CDP event: measured on Chromium 156, when the
// browser discards a tab it creates a new page target with the same URL
// and title (Target.targetCreated, not attached), then detaches and
// destroys the old one, with no Target.targetCrashed. The owner that sees
// that sequence applies Discarded, naming the new target, instead of
// Detached.
type Discarded struct{ ReplacementID string }

// Disconnected is no CDP event: the owner applies it when the connection to
// the browser is lost.
type Disconnected struct{ Reason string }

func (TargetCrashed) isEvent()           {}
func (ReloadedAfterCrash) isEvent()      {}
func (NavigationStarted) isEvent()       {}
func (FrameNavigated) isEvent()          {}
func (NavigatedWithinDocument) isEvent() {}
func (StoppedLoading) isEvent()          {}
func (LoadFired) isEvent()               {}
func (LoadingFailed) isEvent()           {}
func (DialogOpening) isEvent()           {}
func (DialogClosed) isEvent()            {}
func (Paused) isEvent()                  {}
func (Resumed) isEvent()                 {}
func (Detached) isEvent()                {}
func (Discarded) isEvent()               {}
func (Disconnected) isEvent()            {}

// Methods lists the CDP events Decode knows, so a backend can skip every
// other event without decoding it.
var Methods = map[string]bool{
	"Inspector.targetCrashed":            true,
	"Target.targetCrashed":               true,
	"Inspector.targetReloadedAfterCrash": true,
	"Page.frameStartedNavigating":        true,
	"Page.frameNavigated":                true,
	"Page.frameAttached":                 true,
	"Page.frameDetached":                 true,
	"Page.navigatedWithinDocument":       true,
	"Page.frameStoppedLoading":           true,
	"Page.loadEventFired":                true,
	"Page.lifecycleEvent":                true,
	"Network.loadingFailed":              true,
	"Page.javascriptDialogOpening":       true,
	"Page.javascriptDialogClosed":        true,
	"Debugger.paused":                    true,
	"Debugger.resumed":                   true,
	"Target.detachedFromTarget":          true,
	"Target.targetDestroyed":             true,
	"Browser.downloadWillBegin":          true,
	"Browser.downloadProgress":           true,
	"Page.downloadWillBegin":             true,
	"Page.downloadProgress":              true,
	"Fetch.requestPaused":                true,
	"Fetch.authRequired":                 true,
	"Security.certificateError":          true,
	"Page.fileChooserOpened":             true,
	"Audits.issueAdded":                  true,
	"Runtime.consoleAPICalled":           true,
	"Runtime.exceptionThrown":            true,
}

// Decode builds the Event for a CDP method and its raw JSON params. It
// reports false for a method not in [Methods] or params it cannot read.
func Decode(method string, params []byte) (Event, bool) {
	var (
		ev  Event
		err error
	)
	switch method {
	case "Inspector.targetCrashed":
		ev = TargetCrashed{}
	case "Target.targetCrashed":
		var p struct{ TargetID, Status string }
		err = json.Unmarshal(params, &p)
		ev = TargetCrashed{TargetID: p.TargetID, Status: p.Status}
	case "Inspector.targetReloadedAfterCrash":
		ev = ReloadedAfterCrash{}
	case "Page.frameStartedNavigating":
		var p struct{ FrameID, LoaderID, URL, NavigationType string }
		err = json.Unmarshal(params, &p)
		ev = NavigationStarted{FrameID: p.FrameID, LoaderID: p.LoaderID, URL: p.URL, Type: p.NavigationType}
	case "Page.frameNavigated":
		var p struct {
			Frame struct {
				ID, ParentID, LoaderID, URL, URLFragment, UnreachableURL string
			}
		}
		err = json.Unmarshal(params, &p)
		f := p.Frame
		ev = FrameNavigated{FrameID: f.ID, ParentID: f.ParentID, LoaderID: f.LoaderID, URL: f.URL, URLFragment: f.URLFragment, UnreachableURL: f.UnreachableURL}
	case "Page.frameAttached":
		var p struct{ FrameID, ParentFrameID string }
		err = json.Unmarshal(params, &p)
		ev = FrameAttached{FrameID: p.FrameID, ParentID: p.ParentFrameID}
	case "Page.frameDetached":
		var p struct{ FrameID, Reason string }
		err = json.Unmarshal(params, &p)
		ev = FrameDetached{FrameID: p.FrameID, Reason: p.Reason}
	case "Page.navigatedWithinDocument":
		var p struct{ FrameID, URL string }
		err = json.Unmarshal(params, &p)
		ev = NavigatedWithinDocument{FrameID: p.FrameID, URL: p.URL}
	case "Page.loadEventFired":
		ev = LoadFired{}
	case "Page.lifecycleEvent":
		var p struct{ FrameID, LoaderID, Name string }
		err = json.Unmarshal(params, &p)
		ev = LifecycleEvent{FrameID: p.FrameID, LoaderID: p.LoaderID, Name: p.Name}
	case "Page.frameStoppedLoading":
		var p struct{ FrameID string }
		err = json.Unmarshal(params, &p)
		ev = StoppedLoading{FrameID: p.FrameID}
	case "Network.loadingFailed":
		var p struct {
			RequestID, ErrorText string
			Canceled             bool
			CORSErrorStatus      struct{ CORSError string }
		}
		err = json.Unmarshal(params, &p)
		ev = LoadingFailed{RequestID: p.RequestID, ErrorText: p.ErrorText, Canceled: p.Canceled, CORSError: p.CORSErrorStatus.CORSError}
	case "Page.javascriptDialogOpening":
		var p struct{ Type, Message, DefaultPrompt string }
		err = json.Unmarshal(params, &p)
		ev = DialogOpening{Type: p.Type, Message: p.Message, DefaultPrompt: p.DefaultPrompt}
	case "Page.javascriptDialogClosed":
		ev = DialogClosed{}
	case "Debugger.paused":
		var p struct{ Reason string }
		err = json.Unmarshal(params, &p)
		ev = Paused{Reason: p.Reason}
	case "Debugger.resumed":
		ev = Resumed{}
	case "Target.detachedFromTarget":
		var p struct{ SessionID, TargetID string }
		err = json.Unmarshal(params, &p)
		ev = Detached{SessionID: p.SessionID, TargetID: p.TargetID}
	case "Target.targetDestroyed":
		var p struct{ TargetID string }
		err = json.Unmarshal(params, &p)
		ev = Detached{TargetID: p.TargetID}
	case "Browser.downloadWillBegin", "Page.downloadWillBegin":
		var p struct{ FrameID, GUID, URL, SuggestedFilename string }
		err = json.Unmarshal(params, &p)
		ev = DownloadWillBegin{FrameID: p.FrameID, GUID: p.GUID, URL: p.URL, SuggestedFilename: p.SuggestedFilename}
	case "Browser.downloadProgress", "Page.downloadProgress":
		var p struct {
			GUID, State, FilePath     string
			TotalBytes, ReceivedBytes float64
		}
		err = json.Unmarshal(params, &p)
		ev = DownloadProgress{GUID: p.GUID, State: p.State, TotalBytes: int64(p.TotalBytes), ReceivedBytes: int64(p.ReceivedBytes), FilePath: p.FilePath}
	case "Fetch.requestPaused":
		var p struct {
			RequestID, NetworkID, FrameID, ResourceType string
			Request                                     struct{ URL string }
		}
		err = json.Unmarshal(params, &p)
		ev = RequestPaused{RequestID: p.RequestID, NetworkID: p.NetworkID, FrameID: p.FrameID, URL: p.Request.URL, ResourceType: p.ResourceType}
	case "Fetch.authRequired":
		var p struct {
			RequestID, FrameID, ResourceType string
			Request                          struct{ URL string }
			AuthChallenge                    struct{ Origin, Scheme, Realm, Source string }
		}
		err = json.Unmarshal(params, &p)
		c := p.AuthChallenge
		ev = AuthRequired{RequestID: p.RequestID, FrameID: p.FrameID, URL: p.Request.URL, ResourceType: p.ResourceType,
			Origin: c.Origin, Scheme: c.Scheme, Realm: c.Realm, Source: c.Source}
	case "Security.certificateError":
		var p struct {
			EventID               int
			ErrorType, RequestURL string
		}
		err = json.Unmarshal(params, &p)
		ev = CertificateError{EventID: p.EventID, ErrorType: p.ErrorType, URL: p.RequestURL}
	case "Page.fileChooserOpened":
		var p struct {
			FrameID, Mode string
			BackendNodeID int
		}
		err = json.Unmarshal(params, &p)
		ev = FileChooserOpened{FrameID: p.FrameID, Mode: p.Mode, BackendNodeID: p.BackendNodeID}
	case "Audits.issueAdded":
		return decodeIssue(params)
	case "Runtime.consoleAPICalled", "Runtime.exceptionThrown":
		return decodeConsole(method, params)
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	return ev, true
}
