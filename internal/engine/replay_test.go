package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestMessageReplaysRecordings feeds every recording of package tabstate
// (real Chromium's messages, as internal/cmd/recordevents wrote them) to
// Browser.Message as raw CDP messages, with each recorded tab watched, and
// holds that each tab ends in the State recorded for it: the raw intake a
// driver that reads the socket itself uses decodes and routes as the
// backends do.
func TestMessageReplaysRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "tabstate", "testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var rec struct {
				Tabs []struct {
					TargetID, SessionID string
					Start               *struct {
						URL               string
						Committed, Loaded bool
					}
					Want tabstate.State
				}
				Events []struct {
					Method, SessionID string
					Params            json.RawMessage
					Command           bool
				}
			}
			require.NoError(t, json.Unmarshal(data, &rec))
			f := enginetest.New(enginetest.EventsFirst)
			t.Cleanup(f.Close)
			b := engine.NewBrowser(f.Driver(), engine.Config{})
			f.Attach(b)
			t.Cleanup(b.Close)
			tabs := map[string]*engine.Tab{}
			for _, rt := range rec.Tabs {
				start := rt.Start
				if start == nil { // watched from its creation: nothing committed
					start = &struct {
						URL               string
						Committed, Loaded bool
					}{URL: "about:blank"}
				}
				history := map[string]any{"currentIndex": 0, "entries": []any{map[string]any{"url": "about:blank"}}}
				if start.Committed {
					history["entries"] = []any{map[string]any{"url": start.URL}}
				}
				answer(f, "Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": rt.TargetID, "type": "page", "url": start.URL}})
				answer(f, "Page.getNavigationHistory", history)
				readyState := "loading"
				if start.Loaded {
					readyState = "complete"
				}
				answer(f, "Runtime.evaluate", map[string]any{"result": map[string]any{"type": "object", "value": []string{readyState, start.URL}}})
				tab, err := b.Watch(engine.TabHandle{Session: f.Session(rt.SessionID), TargetID: rt.TargetID, SessionID: rt.SessionID, Life: context.Background()})
				require.NoError(t, err)
				tabs[rt.TargetID] = tab
			}
			f.Push(func(b *engine.Browser) {
				for _, m := range rec.Events {
					if m.Command {
						continue
					}
					raw, err := json.Marshal(map[string]any{"method": m.Method, "sessionId": m.SessionID, "params": m.Params})
					require.NoError(t, err)
					if m.SessionID == "" {
						raw, _ = json.Marshal(map[string]any{"method": m.Method, "params": m.Params})
					}
					b.Message(raw)
				}
			})
			for _, rt := range rec.Tabs {
				want := rt.Want
				if diff := cmp.Diff(want, tabs[rt.TargetID].State()); diff != "" {
					t.Errorf("tab %s: State() mismatch (-want +got):\n%s", rt.TargetID, diff)
				}
			}
		})
	}
}
