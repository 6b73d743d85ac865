// Command controlserver is an HTTP control server over one headless
// Chromium, with every tab call made deadline-safe by tabguard. It has its
// own module; run it with
//
//	cd examples/controlserver && go run . -addr 127.0.0.1:8090 [-token SECRET] [-allow-schemes file,data] \
//		[-credentials creds.json] [-upload-dir DIR]
//
//	curl -H 'Content-Type: application/json' -d '{"url":"http://127.0.0.1:8000/"}' 127.0.0.1:8090/browser/tabs
//	curl 127.0.0.1:8090/browser/tabs
//	curl '127.0.0.1:8090/browser/dom?tab=ID&max_bytes=2048'
//	curl '127.0.0.1:8090/browser/snapshot?tab=ID'
//	curl '127.0.0.1:8090/browser/snapshot?tab=ID&offset=500'
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"click","ref":"e12"}' 127.0.0.1:8090/browser/act
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"click","selector":"#buy"}' 127.0.0.1:8090/browser/act
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"fill","ref":"e7","text":"hello"}' 127.0.0.1:8090/browser/act
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"press","key":"Enter"}' 127.0.0.1:8090/browser/act
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"select","ref":"e9","values":["b"]}' 127.0.0.1:8090/browser/act
//	curl '127.0.0.1:8090/browser/clickables?tab=ID'
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","dy":600}' 127.0.0.1:8090/browser/scroll
//	curl '127.0.0.1:8090/browser/frames?tab=ID'
//	curl '127.0.0.1:8090/browser/dom?tab=ID&frame=FRAME'
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","frame":"FRAME","dy":600}' 127.0.0.1:8090/browser/scroll
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","x":100,"y":200}' 127.0.0.1:8090/browser/cursor
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","url":"http://127.0.0.1:8000/next"}' 127.0.0.1:8090/browser/navigate
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID"}' 127.0.0.1:8090/browser/reload
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","accept":true,"prompt_text":"hi"}' 127.0.0.1:8090/browser/dialog
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","x":110,"y":30}' 127.0.0.1:8090/browser/click
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"sign_in","origin":"https://intranet.example"}' 127.0.0.1:8090/browser/prompt
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID","kind":"file_chooser","files":["report.pdf"]}' 127.0.0.1:8090/browser/prompt
//	curl -H 'Content-Type: application/json' -d '{"tab":"ID"}' 127.0.0.1:8090/browser/close
//	curl 127.0.0.1:8090/metrics    # with -metrics only
//
// GET /browser/snapshot lists what a user acts on or reads by, one
// element each with a ref ("e12", "f1e3" in an iframe), its role, name,
// value, state and box, at most 500 elements or 100 KiB at a time; a cut
// list has a notice that says how to read on with offset. POST
// /browser/act does kind (click, double-click, right-click, hover, fill,
// press, select, scroll) on the element a ref or a CSS selector names,
// once it is visible, still, enabled and not covered, and answers what it
// did and set off: a navigation pending, committed or failed, a dialog
// (answer it with POST /browser/dialog), a download, new tabs. An element
// that cannot take it answers 409 with the reason first, such as
// {"error": "covered by <div id=\"cookie-banner\"> at (35,19): click on <button id=\"buy\"> not done in 10s: dismiss what covers it first ..."};
// a selector that matches nothing answers 404, and a ref of an earlier
// page 409, naming GET /browser/snapshot for fresh refs. GET
// /browser/clickables is the snapshot's first 500 elements in the older
// shape. POST /browser/click still clicks at a point x, y.
//
// GET /browser/frames lists a tab's iframes, each with the problem a call
// in it would meet; a frame ID from it makes GET /browser/dom,
// GET /browser/snapshot, GET /browser/clickables, POST /browser/scroll and
// POST /browser/act (with a selector) work in that iframe.
//
// With -token (or TABGUARD_TOKEN) set, add -H 'Authorization: Bearer SECRET'
// (a Prometheus scrape config sends it with authorization: credentials).
// With -metrics, GET /metrics serves the tab calls' durations, refusals,
// timeouts, crashes and watched tabs in Prometheus's text format; without
// it there is no such route.
//
// POST /browser/prompt gets a tab past a prompt, and only with what the
// server is configured with. -credentials names a JSON file of credentials
// by origin,
//
//	[{"origin": "https://intranet.example", "username": "agent", "password_env": "INTRANET_PASSWORD"}]
//
// whose passwords are read from the environment variables it names as the
// server starts; a variable that is not set, an origin that is not
// http(s)://host[:port] or one the URL policy does not open fails the
// start. With it, a sign-in answers "sign-in required: ORIGIN (realm
// "staff"): POST /browser/prompt with kind sign_in and the origin named
// here, then POST /browser/navigate again; ...", and kind sign_in with
// that origin lets the server answer the tab's sign-ins there with its
// credentials (never another tab's, never a proxy's). Chrome keeps
// credentials a site took and sends them again to that origin from every
// tab. -upload-dir names the only directory a file chooser may be given
// files from: kind file_chooser with names inside it (no .., no absolute
// path, no link out of it, files that exist) gives the tab's next chooser
// those files, once; POST /browser/click on the input then opens it. Any
// other chooser is cancelled, and a click on it answers "file chooser was
// cancelled". No password appears in an answer, an error or a log line.
// The browser saves no downloads.
//
// A tab that cannot answer gets a 500 whose JSON body is the real reason
// and the endpoint that fixes it, such as
// {"error": "tab renderer crashed (reason: crashed): POST /browser/reload"};
// a page that stopped at a prompt the server cannot answer (a sign-in, an
// untrusted certificate, a client certificate) gets a 500 that says which,
// naming the host, and POST /browser/navigate to another page. Bad input
// gets a 400. Any web page the user opens can send requests to
// 127.0.0.1, so the server answers only calls addressed to it by name
// (Host), from no foreign page (Origin), with a JSON Content-Type and, when
// set, the token; it opens only http and https URLs and never the cloud
// metadata hosts unless the flags say otherwise, and reads no iframe at a
// URL it would not open. Client in client.go calls it with timeouts set.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// config is what the flags say.
type config struct {
	addr                      string
	evalTimeout               time.Duration
	token                     string
	schemes, allowed, blocked string
	metrics                   bool
	credentials, uploadDir    string
}

func main() {
	var cfg config
	flag.StringVar(&cfg.addr, "addr", "127.0.0.1:8090", "listen address")
	flag.DurationVar(&cfg.evalTimeout, "eval-timeout", tabguard.DefaultEvalTimeout, "deadline of each tab call")
	flag.StringVar(&cfg.token, "token", "", "bearer token every request must carry (default $TABGUARD_TOKEN)")
	flag.StringVar(&cfg.schemes, "allow-schemes", "", "comma-separated URL schemes to open besides http and https, such as file,data")
	flag.StringVar(&cfg.allowed, "allowed-origins", "", "semicolon-separated origins or hosts the server may open (*.example.com for a domain); empty allows all")
	flag.StringVar(&cfg.blocked, "blocked-origins", strings.Join(defaultBlocked, ";"), "semicolon-separated origins or hosts the server never opens")
	flag.StringVar(&cfg.credentials, "credentials", "", "JSON file of sign-in credentials by origin, each password read from the environment variable it names; POST /browser/prompt gives them")
	flag.StringVar(&cfg.uploadDir, "upload-dir", "", "the only directory POST /browser/prompt may give a file chooser files from; empty gives none")
	flag.BoolVar(&cfg.metrics, "metrics", false, "serve GET /metrics in Prometheus's text format, behind the same checks and token as every route")
	flag.Parse()
	if cfg.token == "" {
		cfg.token = os.Getenv("TABGUARD_TOKEN")
	}
	if err := run(cfg); err != nil {
		log.Fatal(err)
	}
}

// policy is the URL policy the flags set.
func (c config) policy() *tabguard.URLPolicy {
	split := func(s, sep string) []string {
		var out []string
		for _, f := range strings.Split(s, sep) {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	return &tabguard.URLPolicy{Schemes: split(c.schemes, ","), AllowedOrigins: split(c.allowed, ";"), BlockedOrigins: split(c.blocked, ";")}
}

func run(cfg config) error {
	// Read first: a configuration that cannot work fails before a browser starts.
	if _, err := agentprompt.LoadConfig(cfg.credentials, cfg.uploadDir, cfg.policy(), os.LookupEnv); err != nil {
		return err
	}
	bin, ok := launcher.LookPath()
	if !ok {
		return errors.New("no Chromium found: install the chromium package")
	}
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).
		Set("disable-gpu").Set("disable-quic").Set("no-first-run").
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync")
	defer l.Cleanup()
	defer l.Kill()
	u, err := l.Launch()
	if err != nil {
		return fmt.Errorf("launch %s: %w", bin, err)
	}
	b := rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		return fmt.Errorf("connect to %s: %w", bin, err)
	}
	defer b.Close()

	s, err := NewServer(b, &ServerConfig{Watch: &tabguard.Options{EvalTimeout: cfg.evalTimeout, URLs: cfg.policy()}, Metrics: cfg.metrics,
		CredentialsFile: cfg.credentials, UploadDir: cfg.uploadDir})
	if err != nil {
		return err
	}
	defer func() {
		if err := s.Close(); err != nil {
			log.Print(err)
		}
	}()
	// Listen first: the Host allow-list needs the port, which ":0" picks.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           Guard(ln.Addr().String(), cfg.token, s.Handler()),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      DefaultLoadTimeout + 10*time.Second, // the longest handler, plus a margin
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // Serve returns ErrServerClosed either way
	}()
	if cfg.token == "" {
		log.Print("no -token set: any program on this machine can drive the browser")
	}
	log.Printf("control server on http://%s", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
