// Command mcpserver is an MCP server over stdio that gives a model a
// headless Chromium through tools it can drive end to end: list_tabs,
// open_tab, navigate, reload_tab, close_tab, handle_dialog, list_frames (a
// tab's iframes, each with its problem), get_tab_dom (a window of the
// page's HTML or text at a time), eval_in_tab, snapshot, click, type,
// select, press, scroll, hover, screenshot, pdf, recover_tab and
// handle_prompt; get_tab_dom, eval_in_tab, snapshot and the actions take
// a frame from list_frames to work in that iframe.
//
// snapshot lists what a user acts on or reads by, one line each, as
// `e12 button "Buy now" [disabled]`, with refs ("f1e3" in an iframe) that
// the actions take until the page navigates; a list cut at 500 elements
// or 100 KiB ends "showing elements 1-500 of 1200: to read on, call
// snapshot with offset 500". click, type, select, press, scroll and hover
// act on an element by ref or CSS selector once it is visible, still,
// enabled and not covered, and answer what they did and set off, as
// "click on <a id="next">, navigation to http://127.0.0.1:8000/next
// pending", with what to do next: call snapshot for the new page's refs,
// handle_dialog for a dialog it opened, the new tab's ID for a popup. One
// that cannot act says why first, as "covered by <div
// id="cookie-banner"> at (35,19): click on <button id="buy"> not done in
// 5s: dismiss what covers it first ...", and a ref of an earlier page says
// "take fresh refs with the snapshot tool". click with x and y and no
// element is a real click at that point of the viewport.
//
// Every call answers in time; a tool error says what is wrong and which
// tool fixes it, such as "tab renderer crashed (reason: oom): call
// reload_tab" or "frame is detached: no such frame in the tab (frame ID):
// call list_frames". A
// page that stopped at a prompt the server cannot answer says which and
// names the host, such as "sign-in required:
// net::ERR_INVALID_AUTH_CREDENTIALS for HOST: the page needs credentials
// the server does not have: call navigate for another page". It
// opens only http and https URLs unless told otherwise, and never the
// cloud metadata address, and reads or acts in no iframe at a URL it
// would not open: a snapshot names such a frame as left out.
// It has its own module; run it, or name it as the command in an MCP
// client's config, with
//
//	cd examples/mcpserver && go run . [-allow-schemes file] [-allowed-origins 'example.com;*.example.org'] \
//		[-credentials creds.json] [-upload-dir DIR]
//
// The agent gets past a prompt with handle_prompt, and only with what the
// server is configured with. -credentials names a JSON file of
// credentials by origin,
//
//	[{"origin": "https://intranet.example", "username": "agent", "password_env": "INTRANET_PASSWORD"}]
//
// whose passwords are read from the environment variables it names as the
// server starts; a variable that is not set, an origin that is not
// http(s)://host[:port] or one the URL policy does not open fails the
// start. With it, a sign-in reads "sign-in required: ORIGIN (realm
// "staff"): call handle_prompt with kind sign_in and the origin named
// here, then navigate again; ...", and handle_prompt with that origin lets
// the server answer the tab's sign-ins there with its credentials (never
// another tab's, never a proxy's). Chrome keeps credentials a site took
// and sends them again to that origin from every tab. -upload-dir names
// the only directory a file chooser may be given files from: handle_prompt
// with kind file_chooser and names inside it (no .., no absolute path, no
// link out of it, files that exist) gives the tab's next chooser those
// files, once; click on the input then opens it. Any other chooser is
// cancelled, and a click on it answers "file chooser was cancelled". No
// password appears in a tool result, an error or a log line. The browser
// saves no downloads.
//
// With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
// set, it sends a span for each tool call, "tools/call eval_in_tab", with
// the guarded calls the tool made (tabguard.Eval, ...) as its children, to
// that OTLP/HTTP collector; without, it traces nothing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/agentprompt"
)

// defaultBlocked are the origins the server never opens unless told
// otherwise: the cloud metadata services.
const defaultBlocked = "169.254.169.254;metadata.google.internal"

func main() {
	var cfg config
	flag.DurationVar(&cfg.evalTimeout, "eval-timeout", tabguard.DefaultEvalTimeout, "deadline of each tab call")
	flag.StringVar(&cfg.schemes, "allow-schemes", "", "comma-separated URL schemes to open besides http and https, such as file,data")
	flag.StringVar(&cfg.allowed, "allowed-origins", "", "semicolon-separated origins or hosts the server may open (*.example.com for a domain); empty allows all")
	flag.StringVar(&cfg.blocked, "blocked-origins", defaultBlocked, "semicolon-separated origins or hosts the server never opens")
	flag.StringVar(&cfg.credentials, "credentials", "", "JSON file of sign-in credentials by origin, each password read from the environment variable it names; handle_prompt gives them")
	flag.StringVar(&cfg.uploadDir, "upload-dir", "", "the only directory handle_prompt may give a file chooser files from; empty gives none")
	flag.Parse()
	log.SetOutput(os.Stderr) // stdout carries the protocol
	if err := run(cfg); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	evalTimeout               time.Duration
	schemes, allowed, blocked string
	credentials, uploadDir    string
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

// run serves until stdin closes or a signal comes, then ends the browser
// and removes its profile folder before it returns.
func run(cfg config) error {
	// Read first: a configuration that cannot work fails before a browser starts.
	pc, err := agentprompt.LoadConfig(cfg.credentials, cfg.uploadDir, cfg.policy(), os.LookupEnv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, closeBrowser, err := launch()
	if err != nil {
		return err
	}
	defer closeBrowser()
	tp, shutdown, err := otlpTracing(ctx)
	if err != nil {
		return err
	}
	defer func() {
		// Send the spans left, but do not hold the exit for long on a
		// collector that does not answer.
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			log.Printf("send the last spans: %v", err)
		}
	}()
	s, tools, err := newServer(b, &tabguard.Options{EvalTimeout: cfg.evalTimeout, URLs: cfg.policy()}, tp, pc)
	if err != nil {
		return err
	}
	defer tools.Close()
	err = s.Run(ctx, &mcp.StdioTransport{})
	if ctx.Err() != nil {
		return nil // a signal: a clean stop
	}
	return err
}

// launch starts a system Chromium, never a downloaded one, with a profile
// folder of its own. closeBrowser kills it, waits for it to exit (a second
// at most) and removes the folder.
func launch() (b *rod.Browser, closeBrowser func(), err error) {
	bin, ok := launcher.LookPath()
	if !ok {
		return nil, nil, errors.New("no Chromium found: install the chromium package")
	}
	dir, err := os.MkdirTemp("", "tabguard-mcpserver-")
	if err != nil {
		return nil, nil, err
	}
	l := launcher.New().Bin(bin).Headless(true).NoSandbox(true).UserDataDir(dir).
		Set("disable-gpu").Set("disable-quic").Set("no-first-run").
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync")
	closeBrowser = func() {
		kill(l)
		_ = os.RemoveAll(dir)
	}
	u, err := l.Launch()
	if err != nil {
		closeBrowser()
		return nil, nil, fmt.Errorf("launch %s: %w", bin, err)
	}
	b = rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		closeBrowser()
		return nil, nil, fmt.Errorf("connect to %s: %w", bin, err)
	}
	return b, closeBrowser, nil
}

// kill ends the browser and its helper processes, and waits a second at
// most for it to exit. rod's Launcher.Kill sleeps a second before it kills,
// which would keep the server from exiting promptly when stdin closes.
func kill(l *launcher.Launcher) {
	if pid := l.PID(); pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL) // the launcher starts it in a process group of its own
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	exited := make(chan struct{})
	go func() { l.Cleanup(); close(exited) }() // Cleanup waits for the exit
	select {
	case <-exited:
	case <-time.After(time.Second):
	}
}
