package chromedpguard

import (
	"encoding/json"

	"github.com/chromedp/cdproto/audits"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/tabguard/tabguard/tabstate"
)

// pageEvent turns an event of a tab's session, as chromedp's Listen hands
// it over (a pointer to cdproto's type), into the state machine's. Every
// other event is no news to the machine.
func pageEvent(ev any) (tabstate.Event, bool) {
	switch e := ev.(type) {
	case *inspector.EventTargetCrashed:
		return tabstate.TargetCrashed{}, true
	case *inspector.EventTargetReloadedAfterCrash:
		return tabstate.ReloadedAfterCrash{}, true
	case *page.EventFrameStartedNavigating:
		return tabstate.NavigationStarted{FrameID: string(e.FrameID), LoaderID: string(e.LoaderID), URL: e.URL,
			Type: string(e.NavigationType)}, true
	case *page.EventFrameNavigated:
		if e.Frame == nil {
			return nil, false
		}
		f := e.Frame
		return tabstate.FrameNavigated{
			FrameID: string(f.ID), ParentID: string(f.ParentID), LoaderID: string(f.LoaderID),
			URL: f.URL, URLFragment: f.URLFragment, UnreachableURL: f.UnreachableURL,
		}, true
	case *page.EventFrameAttached:
		return tabstate.FrameAttached{FrameID: string(e.FrameID), ParentID: string(e.ParentFrameID)}, true
	case *page.EventFrameDetached:
		return tabstate.FrameDetached{FrameID: string(e.FrameID), Reason: string(e.Reason)}, true
	case *page.EventNavigatedWithinDocument:
		return tabstate.NavigatedWithinDocument{FrameID: string(e.FrameID), URL: e.URL}, true
	case *page.EventLoadEventFired:
		return tabstate.LoadFired{}, true
	case *page.EventLifecycleEvent:
		return tabstate.LifecycleEvent{FrameID: string(e.FrameID), LoaderID: string(e.LoaderID), Name: e.Name}, true
	case *page.EventFrameStoppedLoading:
		return tabstate.StoppedLoading{FrameID: string(e.FrameID)}, true
	case *network.EventLoadingFailed:
		lf := tabstate.LoadingFailed{RequestID: string(e.RequestID), ErrorText: e.ErrorText, Canceled: e.Canceled}
		if e.CorsErrorStatus != nil {
			lf.CORSError = string(e.CorsErrorStatus.CorsError)
		}
		return lf, true
	case *page.EventJavascriptDialogOpening:
		return tabstate.DialogOpening{Type: string(e.Type), Message: e.Message, DefaultPrompt: e.DefaultPrompt}, true
	case *page.EventJavascriptDialogClosed:
		return tabstate.DialogClosed{}, true
	case *debugger.EventPaused:
		return tabstate.Paused{Reason: string(e.Reason)}, true
	case *debugger.EventResumed:
		return tabstate.Resumed{}, true
	case *fetch.EventRequestPaused:
		if e.Request == nil {
			return nil, false
		}
		return tabstate.RequestPaused{RequestID: string(e.RequestID), NetworkID: string(e.NetworkID), FrameID: string(e.FrameID),
			URL: e.Request.URL, ResourceType: string(e.ResourceType)}, true
	case *fetch.EventAuthRequired:
		if e.Request == nil || e.AuthChallenge == nil {
			return nil, false
		}
		c := e.AuthChallenge
		return tabstate.AuthRequired{RequestID: string(e.RequestID), FrameID: string(e.FrameID), URL: e.Request.URL,
			ResourceType: string(e.ResourceType), Origin: c.Origin, Scheme: string(c.Scheme), Realm: c.Realm, Source: string(c.Source)}, true
	case *audits.EventIssueAdded:
		if e.Issue == nil || e.Issue.Code != audits.InspectorIssueCodeCorsIssue || e.Issue.Details == nil || e.Issue.Details.CorsIssueDetails == nil {
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
	case *page.EventFileChooserOpened:
		return tabstate.FileChooserOpened{FrameID: string(e.FrameID), Mode: string(e.Mode), BackendNodeID: int(e.BackendNodeID)}, true
	case *runtime.EventConsoleAPICalled:
		call := tabstate.ConsoleAPICalled{Type: string(e.Type), Timestamp: e.Timestamp.Float64()}
		for _, a := range e.Args {
			call.Args = append(call.Args, remoteValue(a))
		}
		call.URL, call.LineNumber = topFrame(e.StackTrace)
		return call, true
	case *runtime.EventExceptionThrown:
		if e.ExceptionDetails == nil {
			return nil, false
		}
		d := e.ExceptionDetails
		thrown := tabstate.ExceptionThrown{Text: d.Text, URL: d.URL, LineNumber: int(d.LineNumber), Timestamp: e.Timestamp.Float64()}
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
func remoteValue(o *runtime.RemoteObject) tabstate.RemoteValue {
	if o == nil {
		return tabstate.RemoteValue{Type: "undefined"}
	}
	v := tabstate.RemoteValue{Type: string(o.Type), Subtype: string(o.Subtype), Value: json.RawMessage(o.Value),
		UnserializableValue: string(o.UnserializableValue), Description: o.Description}
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
func topFrame(st *runtime.StackTrace) (url string, line int) {
	if st == nil || len(st.CallFrames) == 0 || st.CallFrames[0] == nil {
		return "", 0
	}
	return st.CallFrames[0].URL, int(st.CallFrames[0].LineNumber)
}
