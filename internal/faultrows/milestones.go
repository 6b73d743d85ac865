package faultrows

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// MilestonesServer starts a 127.0.0.1 server for t, for the lifecycle
// milestone rows of every backend: "/" is a page of text and
// an image, "/held" one whose image the server holds until release is
// called, so its document cannot reach NetworkIdle before.
func MilestonesServer(t testing.TB) (srv *httptest.Server, release func()) {
	t.Helper()
	held := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="teal"/></svg>`
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>one</title><p>héllo</p><img src="/dot.svg">`)
	})
	mux.HandleFunc("/held", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>two</title><p>wörld</p><img src="/held.svg">`)
	})
	mux.HandleFunc("/dot.svg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, svg)
	})
	mux.HandleFunc("/held.svg", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprint(w, svg)
	})
	// A page that never paints, and one that paints, then loops.
	mux.HandleFunc("/unpainted", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>unpainted</title><body></body>`)
	})
	mux.HandleFunc("/looping", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>looping</title><p>busy</p><script>setTimeout(() => { for (;;) {} }, 100)</script>`)
	})
	mux.HandleFunc("/favicon.ico", http.NotFound)
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(release) // runs first: Close waits for the handlers
	return srv, release
}

// WaitRow is a wait that runs out of time on a page of MilestonesServer:
// the page, the milestones the wait asks for, and what its timeout must
// say.
type WaitRow struct {
	Name, Path string
	// Want is the milestones the wait asks for.
	Want tabstate.Milestone
	// Cause is the timeout's; Milestones the document's when it ran out;
	// Doing holds the words its Doing must contain.
	Cause      tabstate.TimeoutCause
	Milestones tabstate.Milestone
	Doing      []string
}

// WaitRows are the waits that run out of time, as every backend's
// Watcher.Wait answers them: a page that never painted, whose network
// went idle, so Chrome will report no first meaningful paint; and a page
// whose script holds the main thread, so no milestone comes at all.
var WaitRows = []WaitRow{
	{Name: "never painted", Path: "/unpainted", Want: tabstate.FirstMeaningfulPaint,
		Cause:      tabstate.TimeoutUnsettled,
		Milestones: tabstate.DOMContentLoaded | tabstate.NetworkAlmostIdle | tabstate.NetworkIdle,
		Doing: []string{"answers, but the wait never finished", "reported its document's DOMContentLoaded, the load event, network almost idle and network idle",
			"not first contentful paint or first meaningful paint", "so this document will not have one"}},
	{Name: "busy script", Path: "/looping", Want: tabstate.NetworkIdle,
		Cause: tabstate.TimeoutBusyScript,
		Doing: []string{"busy running script on committed page", "not "}},
}

// CheckWaitTimeout holds err and s, a Wait's answers for row, to row.
func CheckWaitTimeout(t testing.TB, row WaitRow, s tabstate.State, err error) {
	t.Helper()
	var te *tabstate.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("Wait = %v; want a *TimeoutError", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(%v, context.DeadlineExceeded) = false", err)
	}
	if te.Op != "wait" || te.Cause != row.Cause {
		t.Errorf("Op, Cause = %q, %v; want \"wait\", %v (%v)", te.Op, te.Cause, row.Cause, err)
	}
	if row.Milestones != 0 && te.Milestones != row.Milestones {
		t.Errorf("Milestones = %v; want %v", te.Milestones, row.Milestones)
	}
	if te.Milestones != s.Milestones {
		t.Errorf("Milestones = %v, the state's %v; want the same", te.Milestones, s.Milestones)
	}
	for _, w := range row.Doing {
		if !strings.Contains(te.Doing, w) {
			t.Errorf("Doing = %q; want it to contain %q", te.Doing, w)
		}
	}
}
