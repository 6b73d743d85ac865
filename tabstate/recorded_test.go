package tabstate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tabguard/tabguard/tabstate"
)

// recording is a file of testdata: the CDP events real tabs of Chromium
// sent in one scenario, as internal/cmd/recordevents wrote them. To record
// them again, from the module root:
//
//	go run ./internal/cmd/recordevents
type recording struct {
	Scenario string
	About    string
	Browser  string
	Tabs     []struct {
		TargetID, SessionID string
		// Start is what a watcher attached before the events learns of
		// the tab by asking; nil for a tab watched from its creation.
		Start *struct {
			URL               string
			Committed, Loaded bool
		}
		Want tabstate.State
		// Frames are the iframes the tab ends with; nil (no "frames" in
		// the file) for a recording that does not check them.
		Frames []tabstate.Frame
	}
	Events []struct {
		Method, SessionID string
		Params            json.RawMessage
		Command           bool // a command the recorder sent, marking a step
	}
}

// TestRecorded replays every recording through Decode and Tab.Apply,
// routing the events as package tabguard's BrowserWatcher does (browser.go):
// a page session's events to the tab of that session; of the browser
// session's, Target.targetCrashed and Target.targetDestroyed to the tab
// they name by target ID and Target.detachedFromTarget to the tab whose
// session it names. News of an iframe's own target goes to the tab that
// has the frame of that ID: Target.targetCreated and
// Target.targetInfoChanged of type "iframe" as Tab.FrameMoved,
// Target.targetCrashed as the frame's TargetCrashed. Each tab must end in
// the State and with the frames recorded for it, and it and its frames
// must move between phases only as Transitions and FrameTransitions list.
func TestRecorded(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in testdata (%v): run go run ./internal/cmd/recordevents", err)
	}
	table, frameTable := rows(), frameRows()
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var rec recording
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatalf("read %s: %v", file, err)
			}
			tabs := make([]tabstate.Tab, len(rec.Tabs))
			frameOf := func(id string) *tabstate.Tab {
				for i := range tabs {
					if _, ok := tabs[i].Frame(id); ok {
						return &tabs[i]
					}
				}
				return nil
			}
			bySession, byTarget := map[string]*tabstate.Tab{}, map[string]*tabstate.Tab{}
			for i, rt := range rec.Tabs {
				tabs[i].MainFrame = rt.TargetID // a page target's main frame has its ID
				if rt.Start != nil {
					tabs[i].Learn(rt.Start.URL, rt.Start.Committed, 0)
					if rt.Start.Loaded {
						tabs[i].LearnLoaded(0)
					}
				}
				bySession[rt.SessionID], byTarget[rt.TargetID] = &tabs[i], &tabs[i]
			}
			for i, m := range rec.Events {
				if m.Command {
					continue
				}
				var tab *tabstate.Tab
				switch {
				case m.SessionID != "":
					if !strings.HasPrefix(m.Method, "Target.") { // the session's own child targets
						tab = bySession[m.SessionID]
					}
				case m.Method == "Target.targetCreated", m.Method == "Target.targetInfoChanged":
					var p struct {
						TargetInfo struct{ TargetID, Type, URL string }
					}
					_ = json.Unmarshal(m.Params, &p)
					if info := p.TargetInfo; info.Type == "iframe" {
						if tab := frameOf(info.TargetID); tab != nil {
							checkFrameMoves(t, i, m.Method, frameTable, frameMoves(tab, frameStep{id: info.TargetID, url: info.URL}))
						}
					}
					continue
				case m.Method == "Target.targetCrashed", m.Method == "Target.targetDestroyed":
					var p struct{ TargetID string }
					_ = json.Unmarshal(m.Params, &p)
					tab = byTarget[p.TargetID]
					if tab == nil && m.Method == "Target.targetCrashed" {
						tab = frameOf(p.TargetID)
					}
				case m.Method == "Target.detachedFromTarget":
					var p struct{ SessionID string }
					_ = json.Unmarshal(m.Params, &p)
					tab = bySession[p.SessionID]
				}
				if tab == nil {
					continue
				}
				ev, ok := tabstate.Decode(m.Method, m.Params)
				if !ok {
					t.Errorf("event %d: Decode(%s, %s) failed", i, m.Method, m.Params)
					continue
				}
				from := tabstate.PhaseOf(tab.State())
				fms := frameMoves(tab, frameStep{ev: ev})
				if mv := (move{from, tabstate.KindOf(ev), tabstate.PhaseOf(tab.State())}); mv.from != mv.to {
					if _, listed := table[mv]; !listed {
						t.Errorf("event %d (%s) moves %v, which Transitions does not list", i, m.Method, mv)
					}
				}
				checkFrameMoves(t, i, m.Method, frameTable, fms)
			}
			for i, rt := range rec.Tabs {
				if diff := cmp.Diff(rt.Want, tabs[i].State()); diff != "" {
					t.Errorf("tab %s: State() mismatch (-want +got):\n%s", rt.TargetID, diff)
				}
				if rt.Frames == nil {
					continue
				}
				if diff := cmp.Diff(rt.Frames, tabs[i].Frames(), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("tab %s: Frames() mismatch (-want +got):\n%s", rt.TargetID, diff)
				}
			}
		})
	}
}

// checkFrameMoves fails t for each of the frame moves event i (method)
// made that the frame table does not list.
func checkFrameMoves(t *testing.T, i int, method string, table map[frameMove]tabstate.FrameTransition, moves []frameMove) {
	t.Helper()
	for _, mv := range moves {
		if _, listed := table[mv]; !listed {
			t.Errorf("event %d (%s) moves a frame %v, which FrameTransitions does not list", i, method, mv)
		}
	}
}
