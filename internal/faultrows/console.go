package faultrows

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// loggingPage logs three lines as it loads, then throws from a timer.
const loggingPage = `<!doctype html><title>logs</title><script>
console.log("hello", 42);
console.warn("careful %s", "now");
console.error(new Error("bad"));
setTimeout(() => { throw new Error("boom") });
</script>`

// ConsoleLogged is what loggingPage says, as ConsoleLines gives it.
var ConsoleLogged = []string{"log: hello 42", "warning: careful now", "error: Error: bad", "exception: Uncaught Error: boom"}

// ConsoleSteps logs seven steps, then starts a loop that holds the page:
// the next call times out with the last five steps in its Console.
const ConsoleSteps = `() => {
	for (let i = 0; i < 7; i++) console.log("step", i);
	setTimeout(() => { while (true) {} });
	return 1
}`

// ConsoleServer serves a page that logs and throws (ConsoleLogged) at
// /logs, and one that says nothing at /quiet.
func ConsoleServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/logs", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, loggingPage) })
	mux.HandleFunc("/quiet", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>quiet</title>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// ConsoleLines are the types and texts of a console log, each "type:
// text", an error's stack left out.
func ConsoleLines(log tabstate.ConsoleLog) []string {
	var out []string
	for _, m := range log.Messages {
		first, _, _ := strings.Cut(m.Text, "\n")
		out = append(out, m.Type+": "+first)
	}
	return out
}

// CheckConsoleTimeout holds err, the answer of a call after ConsoleSteps,
// to a busy script's timeout that carries the last five steps and says no
// more than before.
func CheckConsoleTimeout(t testing.TB, err error) {
	t.Helper()
	var te *tabstate.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("call = %v; want a *TimeoutError", err)
	}
	if te.Cause != tabstate.TimeoutBusyScript {
		t.Errorf("Cause = %v; want TimeoutBusyScript", te.Cause)
	}
	if len(te.Console) != 5 || te.Console[0].Text != "step 2" || te.Console[4].Text != "step 6" {
		t.Errorf("Console = %+v; want steps 2 to 6", te.Console)
	}
	if strings.Contains(te.Error(), "step") {
		t.Errorf("Error() = %q; want it to say no more than before", te.Error())
	}
}
