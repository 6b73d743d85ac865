package tabguard

import (
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// frameStartedNavigating is Page.frameStartedNavigating, which rod
// v0.116.2's proto package predates. Measured on Chromium 156, it is the
// first sign of a new main-frame navigation, whoever starts it: Chrome sends
// it 1-14 ms before the reply to Page.navigate or Page.reload, on a healthy,
// crashed (right after Inspector.targetReloadedAfterCrash) or
// no-document tab alike. Loading it into this type is safe only while no
// other subscriber of the same browser loads the method into a type of its
// own: rod's Message caches the first decoded value.
type frameStartedNavigating struct {
	FrameID        string `json:"frameId"`
	URL            string `json:"url"`
	LoaderID       string `json:"loaderId"`
	NavigationType string `json:"navigationType"`
}

// ProtoEvent names the CDP event, as rod's proto events do.
func (frameStartedNavigating) ProtoEvent() string { return "Page.frameStartedNavigating" }

// pageEvent turns an event of a tab's page session, as rod delivers it, into
// the state machine's. It decodes only the events the machine uses, always
// into rod's own types, which other subscribers of the message share.
func pageEvent(m *rod.Message) (tabstate.Event, bool) {
	switch m.Method {
	case "Inspector.targetCrashed":
		return tabstate.TargetCrashed{}, true
	case "Inspector.targetReloadedAfterCrash":
		return tabstate.ReloadedAfterCrash{}, true
	case "Page.frameStartedNavigating":
		var e frameStartedNavigating
		m.Load(&e)
		return tabstate.NavigationStarted{FrameID: e.FrameID, LoaderID: e.LoaderID, URL: e.URL, Type: e.NavigationType}, true
	case "Page.frameNavigated":
		var e proto.PageFrameNavigated
		if !m.Load(&e) || e.Frame == nil {
			return nil, false
		}
		f := e.Frame
		return tabstate.FrameNavigated{
			FrameID: string(f.ID), ParentID: string(f.ParentID), LoaderID: string(f.LoaderID),
			URL: f.URL, URLFragment: f.URLFragment, UnreachableURL: f.UnreachableURL,
		}, true
	case "Page.frameAttached":
		var e proto.PageFrameAttached
		m.Load(&e)
		return tabstate.FrameAttached{FrameID: string(e.FrameID), ParentID: string(e.ParentFrameID)}, true
	case "Page.frameDetached":
		var e proto.PageFrameDetached
		m.Load(&e)
		return tabstate.FrameDetached{FrameID: string(e.FrameID), Reason: string(e.Reason)}, true
	case "Page.navigatedWithinDocument":
		var e proto.PageNavigatedWithinDocument
		m.Load(&e)
		return tabstate.NavigatedWithinDocument{FrameID: string(e.FrameID), URL: e.URL}, true
	case "Page.loadEventFired":
		return tabstate.LoadFired{}, true
	case "Page.lifecycleEvent":
		var e proto.PageLifecycleEvent
		m.Load(&e)
		return tabstate.LifecycleEvent{FrameID: string(e.FrameID), LoaderID: string(e.LoaderID), Name: string(e.Name)}, true
	case "Page.frameStoppedLoading":
		var e proto.PageFrameStoppedLoading
		m.Load(&e)
		return tabstate.StoppedLoading{FrameID: string(e.FrameID)}, true
	case "Network.loadingFailed":
		var e proto.NetworkLoadingFailed
		m.Load(&e)
		lf := tabstate.LoadingFailed{RequestID: string(e.RequestID), ErrorText: e.ErrorText, Canceled: e.Canceled}
		if e.CorsErrorStatus != nil {
			lf.CORSError = string(e.CorsErrorStatus.CorsError)
		}
		return lf, true
	case "Page.javascriptDialogOpening":
		var e proto.PageJavascriptDialogOpening
		m.Load(&e)
		return tabstate.DialogOpening{Type: string(e.Type), Message: e.Message, DefaultPrompt: e.DefaultPrompt}, true
	case "Page.javascriptDialogClosed":
		return tabstate.DialogClosed{}, true
	case "Debugger.paused":
		var e proto.DebuggerPaused
		m.Load(&e)
		return tabstate.Paused{Reason: string(e.Reason)}, true
	case "Debugger.resumed":
		return tabstate.Resumed{}, true
	case "Page.downloadWillBegin":
		var e proto.PageDownloadWillBegin
		m.Load(&e)
		return tabstate.DownloadWillBegin{FrameID: string(e.FrameID), GUID: e.GUID, URL: e.URL, SuggestedFilename: e.SuggestedFilename}, true
	case "Page.downloadProgress":
		var e proto.PageDownloadProgress
		m.Load(&e)
		return tabstate.DownloadProgress{GUID: e.GUID, State: string(e.State),
			TotalBytes: int64(e.TotalBytes), ReceivedBytes: int64(e.ReceivedBytes)}, true
	case "Fetch.requestPaused":
		var e proto.FetchRequestPaused
		if !m.Load(&e) || e.Request == nil {
			return nil, false
		}
		return tabstate.RequestPaused{RequestID: string(e.RequestID), NetworkID: string(e.NetworkID), FrameID: string(e.FrameID),
			URL: e.Request.URL, ResourceType: string(e.ResourceType)}, true
	case "Fetch.authRequired":
		var e proto.FetchAuthRequired
		if !m.Load(&e) || e.Request == nil || e.AuthChallenge == nil {
			return nil, false
		}
		c := e.AuthChallenge
		return tabstate.AuthRequired{RequestID: string(e.RequestID), FrameID: string(e.FrameID), URL: e.Request.URL,
			ResourceType: string(e.ResourceType), Origin: c.Origin, Scheme: string(c.Scheme), Realm: c.Realm, Source: string(c.Source)}, true
	case "Security.certificateError":
		var e proto.SecurityCertificateError
		m.Load(&e)
		return tabstate.CertificateError{EventID: e.EventID, ErrorType: e.ErrorType, URL: e.RequestURL}, true
	case "Audits.issueAdded":
		var e proto.AuditsIssueAdded
		if !m.Load(&e) || e.Issue == nil || e.Issue.Code != proto.AuditsInspectorIssueCodeCorsIssue ||
			e.Issue.Details == nil || e.Issue.Details.CorsIssueDetails == nil {
			return nil, false
		}
		d := e.Issue.Details.CorsIssueDetails
		issue := tabstate.CORSIssue{}
		if d.Request != nil {
			issue.RequestID, issue.URL = string(d.Request.RequestID), d.Request.URL
		}
		if d.CorsErrorStatus != nil {
			issue.CORSError = string(d.CorsErrorStatus.CorsError)
		}
		return issue, true
	case "Page.fileChooserOpened":
		var e proto.PageFileChooserOpened
		m.Load(&e)
		return tabstate.FileChooserOpened{FrameID: string(e.FrameID), Mode: string(e.Mode), BackendNodeID: int(e.BackendNodeID)}, true
	case "Runtime.consoleAPICalled":
		var e proto.RuntimeConsoleAPICalled
		m.Load(&e)
		call := tabstate.ConsoleAPICalled{Type: string(e.Type), Timestamp: float64(e.Timestamp)}
		for _, a := range e.Args {
			call.Args = append(call.Args, remoteValue(a))
		}
		call.URL, call.LineNumber = topFrame(e.StackTrace)
		return call, true
	case "Runtime.exceptionThrown":
		var e proto.RuntimeExceptionThrown
		if !m.Load(&e) || e.ExceptionDetails == nil {
			return nil, false
		}
		d := e.ExceptionDetails
		thrown := tabstate.ExceptionThrown{Text: d.Text, URL: d.URL, LineNumber: d.LineNumber, Timestamp: float64(e.Timestamp)}
		if d.Exception != nil {
			v := remoteValue(d.Exception)
			thrown.Exception = &v
		}
		if thrown.URL == "" {
			thrown.URL, thrown.LineNumber = topFrame(d.StackTrace)
		}
		return thrown, true
	}
	return nil, false
}

// remoteValue is what a console message shows of a value.
func remoteValue(o *proto.RuntimeRemoteObject) tabstate.RemoteValue {
	if o == nil {
		return tabstate.RemoteValue{Type: "undefined"}
	}
	v := tabstate.RemoteValue{Type: string(o.Type), Subtype: string(o.Subtype),
		UnserializableValue: string(o.UnserializableValue), Description: o.Description}
	v.Value, _ = o.Value.MarshalJSON()
	if p := o.Preview; p != nil {
		v.Preview = &tabstate.ValuePreview{Overflow: p.Overflow}
		for _, q := range p.Properties {
			if q != nil {
				v.Preview.Properties = append(v.Preview.Properties, tabstate.PropertyPreview{
					Name: q.Name, Type: string(q.Type), Subtype: string(q.Subtype), Value: q.Value})
			}
		}
	}
	return v
}

// topFrame is the script and 0-based line of a stack's top frame.
func topFrame(st *proto.RuntimeStackTrace) (url string, line int) {
	if st == nil || len(st.CallFrames) == 0 || st.CallFrames[0] == nil {
		return "", 0
	}
	return st.CallFrames[0].URL, st.CallFrames[0].LineNumber
}
