package enginetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/testctx"
	"github.com/tabguard/tabguard/tabstate"
)

// Methods are the CDP commands the engine sends: Messages sends each.
var Methods = []string{
	"Browser.getVersion", "Browser.setDownloadBehavior", "Inspector.enable", "Network.enable", "Page.getNavigationHistory",
	"Page.close", "Page.handleJavaScriptDialog", "Page.navigate", "Page.reload", "Page.stopLoading",
	"Performance.getMetrics", "Runtime.evaluate", "Runtime.terminateExecution",
	"Target.closeTarget", "Target.createTarget", "Target.getTargetInfo", "Target.getTargets",
	"Target.setDiscoverTargets", "Browser.setPermission", "Page.addScriptToEvaluateOnNewDocument",
	"Fetch.enable", "Fetch.continueRequest", "Fetch.continueWithAuth", "Fetch.disable",
	"Security.enable", "Security.setOverrideCertificateErrors", "Security.handleCertificateError",
	"Page.setInterceptFileChooserDialog", "DOM.setFileInputFiles", "DOM.resolveNode", "Runtime.callFunctionOn", "Runtime.releaseObject",
	"Page.removeScriptToEvaluateOnNewDocument", "Page.setLifecycleEventsEnabled", "Target.getBrowserContexts",
	"Runtime.enable",
}

// Messages drives a Browser over a fake through every command the engine
// sends, each answered as Chrome 156 answers it, and returns the commands
// as sent. A test of a driver's JSON encoder re-encodes them.
func Messages(t testing.TB) []Call {
	t.Helper()
	const url = "http://127.0.0.1:1/"
	f := New(EventsFirst)
	defer f.Close()
	reply := func(method string, result any) {
		f.Handle(method, func(string, json.RawMessage) Reply { return Reply{Result: result} })
	}
	reply("Target.getTargets", map[string]any{"targetInfos": []any{map[string]any{
		"targetId": "T1", "type": "page", "title": "t", "url": url, "attached": true, "canAccessOpener": false, "browserContextId": "B"}}})
	reply("Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": "T1", "type": "page", "title": "t", "url": url, "attached": true}})
	reply("Page.getNavigationHistory", map[string]any{"currentIndex": 0, "entries": []any{map[string]any{
		"id": 1, "url": url, "userTypedURL": url, "title": "t", "transitionType": "typed"}}})
	reply("Target.createTarget", map[string]any{"targetId": "T2"})
	reply("Browser.getVersion", map[string]any{"protocolVersion": "1.3", "product": "Chrome/156.0.8078.73"})
	reply("DOM.resolveNode", map[string]any{"object": map[string]any{"type": "object", "subtype": "node", "objectId": "O1"}})
	reply("Page.addScriptToEvaluateOnNewDocument", map[string]any{"identifier": "1"})
	reply("Performance.getMetrics", map[string]any{"metrics": []any{map[string]any{"name": "Nodes", "value": 12}}})
	f.Handle("Runtime.evaluate", func(_ string, params json.RawMessage) Reply {
		var p struct{ Expression string }
		_ = json.Unmarshal(params, &p)
		switch {
		case strings.Contains(p.Expression, "document.readyState"):
			return Reply{Result: map[string]any{"result": map[string]any{"type": "object", "subtype": "array", "value": []string{"complete", url}}}}
		case strings.Contains(p.Expression, "outerHTML"):
			return Reply{Result: map[string]any{"result": map[string]any{"type": "object", "value": map[string]any{"size": 5, "head": "<p>é"}}}}
		}
		return Reply{Hang: true} // a script holds the page: the probes find it busy
	})
	f.Handle("Page.navigate", func(_ string, params json.RawMessage) Reply {
		var p struct{ URL string }
		_ = json.Unmarshal(params, &p)
		return Reply{Result: map[string]any{"frameId": "T1", "loaderId": "L1"}, Events: []Event{
			Page("S1", tabstate.NavigationStarted{FrameID: "T1", LoaderID: "L1", URL: p.URL}),
			Page("S1", tabstate.FrameNavigated{FrameID: "T1", LoaderID: "L1", URL: p.URL}),
		}}
	})
	f.Handle("Page.reload", func(string, json.RawMessage) Reply { return Reply{Hang: true} })
	// Page.close (AskBeforeClose) answered as just after a commit: the
	// browser side closes the tab.
	f.Handle("Page.close", func(string, json.RawMessage) Reply {
		return Reply{Err: &ProtocolError{Code: -32000, Message: "Not attached to an active page"}}
	})
	f.Handle("Target.closeTarget", func(_ string, params json.RawMessage) Reply {
		var p struct{ TargetID string }
		_ = json.Unmarshal(params, &p)
		return Reply{Result: map[string]any{"success": true}, Events: []Event{func(b *engine.Browser) { b.TargetDestroyed(p.TargetID) }}}
	})

	b := engine.NewBrowser(f.Driver(), engine.Config{
		EvalTimeout: 300 * time.Millisecond, Dialogs: tabstate.DialogAccept, TerminateOnTimeout: true,
		DiscoverTargets: true, AskBeforeClose: true, Console: true,
		Permissions: []tabstate.PermissionGrant{{Origin: "http://127.0.0.1:1", Permissions: []string{"geolocation"}}},
		Credentials: func(context.Context, tabstate.SignIn) (tabstate.Credentials, error) {
			return tabstate.Credentials{Username: "u", Password: "p"}, nil
		},
		InsecureHosts: []string{"127.0.0.1:1"},
		// The first chooser is given a file, the second cancelled.
		FileChooser: func(ctx context.Context, c tabstate.FileChooser) ([]string, error) {
			if f.Count("DOM.setFileInputFiles") == 0 {
				return []string{"/tmp/a.txt"}, nil
			}
			return nil, nil
		},
	})
	f.Attach(b)
	defer b.Close()
	// The scenario's bound, with no deadline of its own: each call is
	// bounded by the eval timeout.
	ctx := testctx.Within(t, context.Background(), 10*time.Second)
	check := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	check("start", b.Start(ctx))
	tab, err := b.Watch(engine.TabHandle{Session: f.Session("S1"), TargetID: "T1", SessionID: "S1", Life: context.Background(),
		CertificateErrors: true})
	check("watch", err)
	check("navigate", tab.Navigate(ctx, url+"next"))
	// A held document request, its sign-in, and a certificate error: each
	// answered from an engine goroutine.
	f.Push(Page("S1", tabstate.RequestPaused{RequestID: "I1", NetworkID: "L2", FrameID: "T1", URL: url, ResourceType: "Document"}),
		Page("S1", tabstate.AuthRequired{RequestID: "I1", FrameID: "T1", URL: url, ResourceType: "Document", Origin: "http://127.0.0.1:1", Scheme: "basic"}),
		Page("S1", tabstate.CertificateError{EventID: 1, ErrorType: "ERR_CERT_AUTHORITY_INVALID", URL: "https://127.0.0.1:1/"}))
	for _, m := range []string{"Fetch.continueRequest", "Fetch.continueWithAuth", "Security.handleCertificateError"} {
		for f.Count(m) == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	for _, method := range []string{"DOM.setFileInputFiles", "Runtime.releaseObject"} {
		f.Push(Page("S1", tabstate.FileChooserOpened{FrameID: "T1", Mode: "selectSingle", BackendNodeID: 7}))
		for f.Count(method) == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	_, err = tab.DOM(ctx, 0)
	check("DOM", err)
	check("handle dialog", tab.HandleDialog(ctx, false, "typed"))
	_ = tab.Reload(ctx) // runs out of time: Page.stopLoading
	_ = tab.Do(ctx, "", func(ctx context.Context) error {
		<-ctx.Done() // out of time: the probes, and a termination
		return ctx.Err()
	})
	// A live tab's watcher, closed, hands back what it had Chrome hold.
	tab2, err := b.Watch(engine.TabHandle{Session: f.Session("S2"), TargetID: "T2", SessionID: "S2", Life: context.Background(),
		CertificateErrors: true})
	check("watch another", err)
	tab2.Close()
	// Close sends the hand-back and does not wait for Chrome's answers.
	for f.Count("Page.removeScriptToEvaluateOnNewDocument") == 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	check("close tab", tab.CloseTab(ctx))
	_, err = engine.Open(ctx, b, "", func(ctx context.Context, id string) (struct{}, *engine.Tab, error) {
		return struct{}{}, nil, nil
	})
	check("open", err)
	// The busy probe of the Do above asked the browser for its version, as
	// the heartbeat does with the same message: the scenario sets no
	// heartbeat, whose bound a loaded machine can miss and so end the
	// connection mid-scenario.
	if f.Count("Browser.getVersion") == 0 {
		t.Fatal("no Browser.getVersion sent: the busy probe did not run")
	}
	return f.Calls()
}
