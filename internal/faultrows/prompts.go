package faultrows

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/tabguard/tabguard/tabstate"
)

// SignInPath is where the test servers ask for HTTP credentials: a 401
// Basic challenge on every request (SignIn).
const SignInPath = "/signin"

// SignInUser and SignInPassword are the credentials SignIn takes.
const SignInUser, SignInPassword = "agent", "s3cret-pw"

// SignIn asks for HTTP credentials (realm "tabguard") on every request
// without SignInUser and SignInPassword, and answers the page "signed in"
// to a request with them.
func SignIn(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); ok && u == SignInUser && p == SignInPassword {
		fmt.Fprint(w, "<!doctype html><title>signed in</title><p>signed in")
		return
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="tabguard"`)
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprint(w, "<!doctype html><title>sign in</title><p>sign in")
}

// DownloadPath is where the test servers send a file to save rather than
// a page (Download).
const DownloadPath = "/download"

// DownloadSize is the size of the file Download sends.
const DownloadSize = 4096

// Download sends DownloadSize bytes as an attachment named x.bin.
func Download(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="x.bin"`)
	w.Header().Set("Content-Length", strconv.Itoa(DownloadSize))
	_, _ = w.Write(make([]byte, DownloadSize))
}

// TLSServer starts an HTTPS server on 127.0.0.1, with httptest's own
// certificate, which no browser trusts; clientCert makes it ask every
// client for a certificate of its own. It ends when t does.
func TLSServer(t testing.TB, clientCert bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>tls</title><p>tls")
	}))
	if clientCert {
		srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// promptRows are loads that stop at a prompt the browser shows instead of
// the page: each says which, at once, and a navigation elsewhere recovers;
// and a tab closed while its page asks to stay. Where headed Chrome draws
// something of its own (docs/prompts.md), the row runs headed too
// (AlsoHeaded), and the answer is the same.
// Prompts are the rows of prompts that are not JavaScript dialogs, headless
// only: the root package runs each of them PromptCycles times on one tab,
// to hold that no reason outlives its prompt.
func Prompts() []Row { return promptRows() }

// PromptCycles is how many times each prompt row runs on one tab: 20 when
// Full, 2 on every run of make test, enough to meet a prompt after one
// that came and went.
func PromptCycles() int {
	if Full() {
		return 20
	}
	return 2
}

// RecoveryCycles is how many fault-recover-eval cycles each way of bringing
// a tab back runs on one tab in the browser: 5 when Full, 2 on every run
// of make test, a recovery from a fresh tab and one after a recovery. The
// rule itself, no stale refusal after a recovery, is held over cycles in
// both orders Chrome's replies and events can come in, with no browser,
// by internal/engine's TestRecoveryShowsAtOnce.
func RecoveryCycles() int {
	if Full() {
		return 5
	}
	return 2
}

func promptRows() []Row {
	return []Row{
		{
			// Headed Chrome draws its "Sign in" prompt over the error page,
			// which blocks nothing: the next navigation takes it away.
			Name: "sign-in required (HTTP 401)", Path: "-", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrSignInRequired, Fast: true, AlsoHeaded: true,
			Msg: []string{"sign-in required: net::ERR_INVALID_AUTH_CREDENTIALS for 127.0.0.1:", "the page needs credentials"},
		},
		{
			// Options.Credentials gives credentials the server refuses: it
			// asks again, and the engine answers with none, so the server's
			// 401 page commits and answers the next eval. Headed, the
			// challenges are answered over CDP and nothing is drawn.
			Name: "credentials refused by the server", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrCredentialsRefused, Fast: true, AlsoHeaded: true,
			Msg: []string{`credentials refused: http://127.0.0.1:`, ` (realm "tabguard"): the server refused the credentials Options.Credentials gave`},
		},
		{
			Name: "untrusted certificate", Path: "-", EvalTimeout: navigateTimeout,
			Want: tabstate.ErrCertificate, Fast: true,
			Msg: []string{"certificate error: net::ERR_CERT_AUTHORITY_INVALID for 127.0.0.1:", "the browser does not trust the server's certificate"},
		},
		{
			// The browser ignores the server's certificate, which it would
			// refuse first: a browser of the row's own.
			Name: "client certificate requested", Path: "-", EvalTimeout: navigateTimeout, Browser: Dedicated,
			Want: tabstate.ErrClientCertificate, Fast: true,
			Msg: []string{"client certificate requested: net::ERR_BAD_SSL_CLIENT_AUTH_CERT for 127.0.0.1:"},
		},
		{
			// A beforeunload dialog open (a navigation asked): Watcher.CloseTab
			// closes the tab anyway, at once, and it leaves the browser's
			// target list; the recovery opens a new tab. Headed Chrome
			// draws "Leave site?" for the dialog.
			Name: "close a page that asks to stay", Fast: true, AlsoHeaded: true,
		},
		{
			// Chrome keeps the page the tab had, which answers the next
			// eval: nothing to recover. Downloads are denied by default. A
			// browser of the row's own: Chrome sends download events only to
			// the DevTools connection that set the policy last, and other
			// tests connect to the shared browser a second time. Headed, the
			// browser's user has a home of its own, whose Downloads folder
			// the row holds empty.
			Name: "navigation becomes a download", EvalTimeout: navigateTimeout, Browser: Dedicated,
			Want: tabstate.ErrDownload, Fast: true, AlsoHeaded: true,
			// The file's name comes from Chrome's event ("x.bin"), or from
			// the URL ("download") when none comes, as now and then.
			Msg: []string{`navigation became a download: "`, `" denied: the page was not left`},
		},
		{
			// Denied by the policy the watcher sets: headed Chrome would
			// show a bubble and leave the request pending. (A local network
			// request needs a browser that takes the page for a public site:
			// TestPermissions runs it, on each backend.)
			Name: "a page asks for a permission", Fast: true, AlsoHeaded: true,
			Msg: []string{"denied"},
		},
		{
			// Replaced as the watcher starts: headed Chrome would open the
			// print preview and hold the call until it closes.
			Name: "a page calls print()", Fast: true, AlsoHeaded: true,
			Msg: []string{ReplacedPrint},
		},
		{
			// A real click on a file input, in a Do that then awaits what
			// the page heard: Chrome cancels the chooser (the default
			// policy), the page hears cancel, and the Do answers why.
			// Nothing to recover: the next eval answers.
			Name: "file chooser", Path: ChooserPath,
			Want: tabstate.ErrFileChooser, Fast: true, AlsoHeaded: true,
			Msg: []string{"file chooser was cancelled: selectSingle input: the call ran and the page was told no file was chosen: set Options.FileChooser"},
		},
	}
}

// ChooserPath is where the test servers serve a page of two file inputs
// (Chooser).
const ChooserPath = "/chooser"

// The centres of Chooser's inputs, in CSS pixels from the page's top left:
// one takes a single file, the other several.
const (
	ChooserX, ChooserSingleY, ChooserMultipleY = 110, 30, 120
)

// Chooser serves a page with a single-file input (#one) and a multiple
// one (#many) whose input, change and cancel events go into window.seen,
// as "one:cancel" or "one:change:a.txt/5" (each file's name and size);
// ChooserSeen reads them.
func Chooser(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, `<!doctype html><title>chooser</title>
<input id=one type=file style="position:absolute;left:10px;top:10px;width:200px;height:40px">
<input id=many type=file multiple style="position:absolute;left:10px;top:100px;width:200px;height:40px">
<script>
window.seen = [];
for (const id of ["one", "many"]) {
	const input = document.getElementById(id);
	input.addEventListener("cancel", () => seen.push(id + ":cancel"));
	input.addEventListener("change", () => seen.push(id + ":change:" + [...input.files].map(f => f.name + "/" + f.size).join(",")));
}
</script>`)
}

// ChooserForget empties what Chooser's page heard, so a fault made again on
// the same page waits for its own chooser.
const ChooserForget = `() => { seen.length = 0 }`

// ChooserSeen is a function that answers what Chooser's inputs heard so
// far, once they heard n events, as a string joined by spaces.
const ChooserSeen = `n => new Promise(done => { const check = () => seen.length >= n ? done(seen.join(" ")) : setTimeout(check, 5); check() })`
