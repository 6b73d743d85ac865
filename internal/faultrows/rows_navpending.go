package faultrows

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// NavPendingRowName is the row of a click on a link whose server never
// answers.
const NavPendingRowName = "click on a link to a server that never answers"

// navPendingRows are navigations the page starts that never commit: Chrome
// holds the page's calls until they do (measured on Chromium 156), while
// the browser process answers and the tab still shows the page it had.
func navPendingRows() []Row {
	return []Row{
		{
			// The link goes to the backends' test server's /stall, which
			// never answers. Recover stops the load (Page.stopLoading),
			// and the page the link was on answers.
			Name:  NavPendingRowName,
			Want:  tabstate.ErrEvalTimeout,
			Msg:   []string{"eval timed out after 2s (" + navPendingDoing("http://127.0.0.1:"), "/stall" + navPendingHeld + ": " + navPendingAdvice + ")"},
			Cause: tabstate.TimeoutNavigating,
		},
	}
}

// The words of a timeout on a page that a pending navigation holds.
const (
	navPendingHeld   = " has not committed, and Chrome holds the page's calls until it does"
	navPendingAdvice = "stop the load with Watcher.Recover, which keeps the page, or wait for it with a later deadline (Watcher.Wait)"
)

// navPendingDoing is the start of what a timeout says the tab was doing
// while the navigation to url was pending.
func navPendingDoing(url string) string { return "navigation to " + url }

// NeverPath is the path of NavPendingServer that never answers.
const NeverPath = "/never"

// NavPendingTitle is the title of NavPendingServer's page, which an eval
// reads once Recover stopped the navigation away from it.
const NavPendingTitle = "kept"

// NavPendingClick is a function for a watcher's Eval, called with a path:
// it adds a link to path to the page and clicks it just after the eval
// answered, as a user's or a program's click does. Chrome starts a
// main-frame navigation to path, which never commits when its server
// never answers.
const NavPendingClick = `(path) => {
	const a = document.createElement("a");
	a.href = path;
	a.textContent = "never";
	document.body.append(a);
	setTimeout(() => a.click(), 0);
}`

// NavPendingServer starts a 127.0.0.1 server for t, for the pending
// navigation rows that run outside the matrix: "/" is a page titled
// NavPendingTitle, and NeverPath never answers: the server holds the
// request until Chrome gives it up or t ends.
func NavPendingServer(t testing.TB) *httptest.Server {
	t.Helper()
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>`+NavPendingTitle+`</title><p>héllo</p>`)
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
// navigation to never was pending, to the row: a timeout whose Cause is
// TimeoutNavigating, naming the navigation's URL and Recover as the
// remedy.
func CheckNavPending(t testing.TB, err error, never string) {
	t.Helper()
	var te *tabstate.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("eval while the navigation is pending = %v; want a *TimeoutError", err)
	}
	if te.Cause != tabstate.TimeoutNavigating {
		t.Errorf("Cause = %v; want TimeoutNavigating (%v)", te.Cause, err)
	}
	if want := navPendingDoing(never) + navPendingHeld + ": " + navPendingAdvice; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q; want it to contain %q", err, want)
	}
}

// CheckNavStopped holds r and err, Recover's answers on the tab whose
// navigation to never was pending, to the row: the navigation stopped,
// for the problem a timeout names.
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
	if want := navPendingDoing(never) + navPendingHeld + ": " + string(tabstate.StoppedNavigation); r.String() != want {
		t.Errorf("Recovery = %q; want %q", r, want)
	}
}
