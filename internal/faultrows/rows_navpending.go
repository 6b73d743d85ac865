package faultrows

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// NeverPath is the path of NavPendingServer that never answers.
const NeverPath = "/never"

// NavPendingTitle is the title of NavPendingServer's page, which an eval
// reads once Recover stopped the navigation away from it.
const NavPendingTitle = "kept"

// NavPendingClick is a function for a watcher's Eval that clicks the link
// of NavPendingServer's page just after the eval answered, as a user or
// a program's click does: Chrome starts a main-frame navigation to
// NeverPath, which never commits, and holds the page's calls meanwhile
// (measured on Chromium 156).
const NavPendingClick = `() => { setTimeout(() => document.getElementById("never").click(), 0) }`

// NavPendingServer starts a 127.0.0.1 server for t, for the pending
// navigation rows of every backend: "/" is a page titled NavPendingTitle
// whose link #never goes to NeverPath, which never answers: the server
// holds the request until Chrome gives it up or t ends.
func NavPendingServer(t testing.TB) *httptest.Server {
	t.Helper()
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>`+NavPendingTitle+`</title><p>héllo</p><a id="never" href="`+NeverPath+`">never</a>`)
	})
	mux.HandleFunc(NeverPath, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	})
	mux.HandleFunc("/favicon.ico", http.NotFound)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: Close waits for the handlers
	return srv
}

// CheckNavPending holds err, the answer of an eval made while the
// navigation to never was pending, under an eval timeout of limit: a
// timeout of its own limit whose Cause is TimeoutNavigating, naming the
// navigation's URL and Recover as the remedy.
func CheckNavPending(t testing.TB, err error, never string, limit time.Duration) {
	t.Helper()
	var te *tabstate.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("eval while the navigation is pending = %v; want a *TimeoutError", err)
	}
	if te.Cause != tabstate.TimeoutNavigating {
		t.Errorf("Cause = %v; want TimeoutNavigating (%v)", te.Cause, err)
	}
	want := []string{
		"eval timed out after " + limit.String(),
		"navigation to " + never + " has not committed, and Chrome holds the page's calls until it does",
		"stop the load with Watcher.Recover, which keeps the page",
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q; want it to contain %q", err, w)
		}
	}
}

// CheckNavStopped holds r and err, Recover's answers on the tab whose
// navigation to never was pending, to the row: the navigation stopped,
// for the problem the eval's timeout named.
func CheckNavStopped(t testing.TB, r tabstate.Recovery, err error, never string) {
	t.Helper()
	if err != nil {
		t.Fatalf("Recover = %v, %v; want no error", r, err)
	}
	if r.Action != tabstate.StoppedNavigation {
		t.Errorf("Recover's Action = %q; want %q", r.Action, tabstate.StoppedNavigation)
	}
	var te *tabstate.TimeoutError
	if !errors.As(r.Problem, &te) || te.Cause != tabstate.TimeoutNavigating {
		t.Errorf("Recover's Problem = %v; want a *TimeoutError with Cause TimeoutNavigating", r.Problem)
	}
	if want := "navigation to " + never + " has not committed"; !strings.Contains(r.String(), want) {
		t.Errorf("Recovery %q; want it to contain %q", r, want)
	}
}
