package engine_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestNavigateBecomesDownload holds that a navigation Chrome turns into a
// download answers ErrDownload, never ErrNoDocument, naming the file and
// what became of it, whether the download's events come before the reply
// to Page.navigate or after it (as measured), in both orders a driver sees
// replies and events; and that the tab, which kept its document, answers
// the next call.
func TestNavigateBecomesDownload(t *testing.T) {
	const fileURL = "http://127.0.0.1:1/download"
	dir := t.TempDir()
	tests := []struct {
		name   string
		dir    string
		events []tabstate.Event // the download's, on the browser session
		want   string           // the error's Detail
	}{
		{
			name: "denied",
			events: []tabstate.Event{
				tabstate.DownloadWillBegin{FrameID: target, GUID: "g1", URL: fileURL, SuggestedFilename: "x.bin"},
				tabstate.DownloadProgress{GUID: "g1", State: "inProgress"},
				tabstate.DownloadProgress{GUID: "g1", State: "canceled"},
			},
			want: `"x.bin" denied`,
		},
		{
			name: "saved",
			dir:  dir,
			events: []tabstate.Event{
				tabstate.DownloadWillBegin{FrameID: target, GUID: "g2", URL: fileURL, SuggestedFilename: "x.bin"},
				tabstate.DownloadProgress{GUID: "g2", State: "inProgress", ReceivedBytes: 4096},
				tabstate.DownloadProgress{GUID: "g2", State: "completed", TotalBytes: 4096, ReceivedBytes: 4096, FilePath: filepath.Join(dir, "g2")},
			},
			want: `"x.bin" saved at ` + filepath.Join(dir, "g2") + " (4096 bytes)",
		},
		{
			// Another client set the policy since: it takes the events.
			name: "saved under a policy of another client",
			events: []tabstate.Event{
				tabstate.DownloadWillBegin{FrameID: target, GUID: "g3", URL: fileURL, SuggestedFilename: "x.bin"},
				tabstate.DownloadProgress{GUID: "g3", State: "completed", TotalBytes: 4096, ReceivedBytes: 4096, FilePath: "/elsewhere/x.bin"},
			},
			want: `"x.bin" saved at /elsewhere/x.bin (4096 bytes)`,
		},
		{
			name: "denied under a policy of another client",
			dir:  dir,
			events: []tabstate.Event{
				tabstate.DownloadWillBegin{FrameID: target, GUID: "g4", URL: fileURL, SuggestedFilename: "x.bin"},
				tabstate.DownloadProgress{GUID: "g4", State: "inProgress", TotalBytes: 4096},
				tabstate.DownloadProgress{GUID: "g4", State: "canceled", TotalBytes: 4096},
			},
			want: `"x.bin" denied, though this watcher's policy saves downloads: a policy set since by another watcher or client of the browser holds`,
		},
		{
			name: "canceled",
			events: []tabstate.Event{
				tabstate.DownloadWillBegin{FrameID: target, GUID: "g5", URL: fileURL, SuggestedFilename: "x.bin"},
				tabstate.DownloadProgress{GUID: "g5", State: "inProgress", TotalBytes: 4096, ReceivedBytes: 1024},
				tabstate.DownloadProgress{GUID: "g5", State: "canceled", TotalBytes: 4096, ReceivedBytes: 1024},
			},
			want: `"x.bin" canceled`,
		},
		{
			name: "no event names it",
			dir:  dir,
			want: `"download" unreported`,
		},
	}
	for _, order := range orders {
		for _, tt := range tests {
			for _, late := range []bool{false, true} {
				name := order.String() + "/" + tt.name + "/events-with-the-reply"
				if late {
					name = order.String() + "/" + tt.name + "/events-after-the-reply"
				}
				t.Run(name, func(t *testing.T) {
					fx := setup(t, order, engine.Config{EvalTimeout: 5 * time.Second, DownloadDir: tt.dir, EventGrace: lateGrace})
					var events []enginetest.Event
					for _, ev := range tt.events {
						events = append(events, func(b *engine.Browser) { b.Download(ev) })
					}
					fx.f.Handle("Page.navigate", func(string, json.RawMessage) enginetest.Reply {
						r := enginetest.Reply{
							Result: map[string]any{"frameId": target, "loaderId": "D", "errorText": "net::ERR_ABORTED", "isDownload": true},
							Events: []enginetest.Event{enginetest.Page(sess, tabstate.NavigationStarted{FrameID: target, LoaderID: "D", URL: fileURL})},
						}
						if late {
							r.After = events
						} else {
							r.Events = append(r.Events, events...)
						}
						return r
					})
					err := fx.tab.Navigate(deadline(t), fileURL)
					var be *tabstate.BlockedError
					require.ErrorAs(t, err, &be)
					assert.Equal(t, tabstate.ErrDownload, be.Reason)
					assert.NotErrorIs(t, err, tabstate.ErrNoDocument)
					assert.Equal(t, tt.want, be.Detail)
					assert.Equal(t, fileURL, be.URL)
					assert.Contains(t, err.Error(), "the page was not left")
					require.NoError(t, fx.tab.Do(deadline(t), "", ok), "the old document answers")
				})
			}
		}
	}
}

// TestDownloadPolicySentOnce holds that the Browser sets the download
// policy once, as it starts: deny by default, save under each download's
// GUID into an absolute directory when one is given; and that a healthy
// call sends nothing more.
func TestDownloadPolicySentOnce(t *testing.T) {
	for _, tt := range []struct {
		name, dir, want string
	}{
		{"default", "", `{"behavior":"deny","eventsEnabled":true}`},
		{"directory", "/srv/files", `{"behavior":"allowAndName","downloadPath":"/srv/files","eventsEnabled":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := setup(t, enginetest.EventsFirst, engine.Config{DownloadDir: tt.dir})
			require.NoError(t, fx.tab.Do(deadline(t), "", ok))
			var sent []string
			for _, c := range fx.f.Calls() {
				if c.Method == "Browser.setDownloadBehavior" {
					sent = append(sent, string(c.Params))
				}
			}
			assert.Equal(t, []string{tt.want}, sent)
		})
	}
}
