// Command recordevents records the Chrome DevTools Protocol events a real
// tab sends in the scenarios tabstate's recorded tests replay: a healthy
// load, crashes and the loads that recover them, failed loads, dialogs, a
// same-document navigation, a popup, a closed tab, and a page's iframes:
// loaded, lazy, failed, moved to a process of their own and back, crashed
// and removed; and the lifecycle milestones of two pages loaded in turn.
// It drives a fresh headless Chromium for each scenario (the system one,
// as internal/testbrowser finds it; it never downloads one),
// with site isolation on where a scenario needs it, on pages served from
// 127.0.0.1 (and from localhost, another site, for iframes), and writes
// tabstate/testdata/<scenario>.json: each tab's target and session, the
// State and the frames the state machine leaves it with, and the events
// of tabstate.Methods, with the browser's news of its iframe targets, in
// the order Chrome sent them, with the recorder's own commands between
// them to mark the steps. Read the diff of each file's "want" and
// "frames" before committing it.
//
// Run it from the module root, then check that the tests agree:
//
//	go run ./internal/cmd/recordevents               # every scenario
//	go run ./internal/cmd/recordevents -run 'crash|popup'   # those whose name matches
//	go run ./internal/cmd/recordevents -run iframe          # the iframe scenarios
//	go test ./tabstate -run TestRecorded
//
// It is a command, not a test: go test never runs it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/tabstate"
)

// recording is the file a scenario writes.
type recording struct {
	Scenario string        `json:"scenario"`
	About    string        `json:"about"`
	Browser  string        `json:"browser"`
	Tabs     []recordedTab `json:"tabs"`
	Events   []message     `json:"events"`
}

func main() {
	out := flag.String("out", filepath.Join("tabstate", "testdata"), "directory to write the recordings to")
	run := flag.String("run", "", "record only the scenarios whose name matches this regular expression")
	flag.Parse()
	match, err := regexp.Compile(*run)
	if err != nil {
		log.Fatalf("-run: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(pages))
	defer srv.Close()
	n := 0
	for _, sc := range scenarios() {
		if !match.MatchString(sc.name) {
			continue
		}
		n++
		rec, err := record(sc, srv.URL)
		if err != nil {
			log.Fatalf("%s: %v", sc.name, err)
		}
		path := filepath.Join(*out, sc.name+".json")
		if err := os.WriteFile(path, encode(rec), 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("%s: %d events, wrote %s", sc.name, len(rec.Events), path)
	}
	if n == 0 {
		log.Fatalf("no scenario matches %q", *run)
	}
}

// pages serves the scenarios' pages: "/" and any other path is a small
// page titled by its path, with an iframe for each "src" of its query and,
// below the fold, a lazy one for each "lazy" (see framePage).
func pages(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>%s</title><p>%s</p>", r.URL.Path, r.URL.Path)
	writeFrames(w, r.URL.Query())
}

// record runs one scenario on a fresh browser.
func record(sc scenario, base string) (*recording, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	launch := testbrowser.Launch
	if sc.isolated {
		launch = testbrowser.LaunchSiteIsolated
	}
	tb, err := launch()
	if err != nil {
		return nil, err
	}
	defer tb.Close()
	rec, err := dial(ctx, tb)
	if err != nil {
		return nil, err
	}
	defer rec.Close()
	b := rod.New().Client(cdp.New().Start(rec)).Context(ctx)
	if err := b.Connect(); err != nil {
		return nil, err
	}
	version, err := proto.BrowserGetVersion{}.Call(b)
	if err != nil {
		return nil, err
	}
	// localhost on the same port is another site than 127.0.0.1: with site
	// isolation on, its iframes get a renderer process of their own.
	cross := strings.Replace(base, "127.0.0.1", "localhost", 1)
	s := &session{ctx: ctx, b: b, rec: rec, base: base, cross: cross}
	if err := sc.run(s); err != nil {
		return nil, fmt.Errorf("%w; the last events were:\n%s", err, rec.tail(20))
	}
	time.Sleep(300 * time.Millisecond) // the events that trail the last step
	r := &recording{Scenario: sc.name, About: sc.about, Browser: version.Product, Tabs: s.tabs, Events: rec.kept()}
	for i, tab := range replay(r.Tabs, r.Events) {
		r.Tabs[i].Want = tab.State()
		r.Tabs[i].Frames = append([]tabstate.Frame{}, tab.Frames()...) // [] and not null: no frames is checked too
	}
	return r, nil
}

// encode writes a recording as indented JSON with one event a line, so a
// diff of two recordings reads event by event.
func encode(r *recording) []byte {
	head := *r
	head.Events = nil
	h, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(h[:bytes.LastIndex(h, []byte(`"events"`))])
	b.WriteString("\"events\": [\n")
	for i, m := range r.Events {
		line, err := json.Marshal(m)
		if err != nil {
			log.Fatal(err)
		}
		b.WriteString("    ")
		b.Write(line)
		if i < len(r.Events)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes()
}
