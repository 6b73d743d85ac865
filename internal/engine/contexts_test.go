package engine_test

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// policyContexts lists, per policy method, the browser contexts the calls
// sent so far named ("" for the default one), once each, sorted.
func policyContexts(f *enginetest.Fake) map[string][]string {
	got := map[string][]string{}
	seen := map[string]bool{}
	for _, c := range f.Calls() {
		if c.Method != "Browser.setDownloadBehavior" && c.Method != "Browser.setPermission" {
			continue
		}
		var p struct {
			BrowserContextID string `json:"browserContextId"`
		}
		_ = json.Unmarshal(c.Params, &p)
		if key := c.Method + "/" + p.BrowserContextID; !seen[key] {
			seen[key] = true
			got[c.Method] = append(got[c.Method], p.BrowserContextID)
		}
	}
	for _, v := range got {
		sort.Strings(v)
	}
	return got
}

// TestPoliciesInEveryContext holds that the download and permission
// policies are set in every browser context: the default one, those the
// browser has as the watcher starts, one a new target reveals, and the
// context of a tab that starts, before its start returns; never twice in
// one context, and never in the default one by its ID.
func TestPoliciesInEveryContext(t *testing.T) {
	f := enginetest.New(enginetest.EventsFirst)
	t.Cleanup(f.Close)
	answer(f, "Target.getTargets", map[string]any{"targetInfos": []any{
		map[string]any{"targetId": target, "type": "page", "url": pageURL, "browserContextId": "C0"}}})
	answer(f, "Target.getBrowserContexts", map[string]any{"browserContextIds": []string{"C1"}, "defaultBrowserContextId": "C0"})
	answer(f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": target, "type": "page", "url": pageURL, "browserContextId": "C3"}})
	answer(f, "Page.getNavigationHistory", map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"url": pageURL}}})
	f.Handle("Runtime.evaluate", evaluate(nil))
	answer(f, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"identifier": "1"})
	b := engine.NewBrowser(f.Driver(), engine.Config{DiscoverTargets: true})
	f.Attach(b)
	t.Cleanup(b.Close)
	require.NoError(t, b.Start(deadline(t)))
	want := map[string][]string{"Browser.setDownloadBehavior": {"", "C1"}, "Browser.setPermission": {"", "C1"}}
	if diff := cmp.Diff(want, policyContexts(f)); diff != "" {
		t.Fatalf("after Start (-want +got):\n%s", diff)
	}

	f.Push(func(b *engine.Browser) {
		b.TargetCreated(engine.TargetInfo{TargetID: "T2", Type: "page", BrowserContextID: "C2"})
		b.TargetCreated(engine.TargetInfo{TargetID: "T4", Type: "page", BrowserContextID: "C0"})
		b.TargetCreated(engine.TargetInfo{TargetID: "T5", Type: "page", BrowserContextID: "C1"})
	})
	// The tab's start waits for its context's policies, C3's: C2's are
	// under way in the background.
	tab, err := b.Watch(engine.TabHandle{Session: f.Session(sess), TargetID: target, SessionID: sess, Life: context.Background()})
	require.NoError(t, err)
	t.Cleanup(tab.Close)
	for method, contexts := range policyContexts(f) {
		require.Contains(t, contexts, "C3", "%s in the tab's context before its start returned", method)
	}
	b.Close() // waits for the policies under way
	want = map[string][]string{"Browser.setDownloadBehavior": {"", "C1", "C2", "C3"}, "Browser.setPermission": {"", "C1", "C2", "C3"}}
	if diff := cmp.Diff(want, policyContexts(f)); diff != "" {
		t.Errorf("after a new context and a tab's start (-want +got):\n%s", diff)
	}
	require.Equal(t, len(tabstate.PromptingPermissions())*4, f.Count("Browser.setPermission"), "each context once")
}
