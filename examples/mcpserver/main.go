// Command mcpserver is an MCP server over stdio that gives a model a
// headless Chromium through three tools: open_tab, get_tab_dom (HTML capped
// at max_bytes, default 100 KB, with a notice naming the full size) and
// eval_in_tab. A crashed or dead tab answers with a tool error carrying the
// real reason, such as "tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)",
// instead of hanging the session. It has its own module; run it, or name
// it as the command in an MCP client's config, with
//
//	cd examples/mcpserver && go run .
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tabguard/tabguard"
)

func main() {
	evalTimeout := flag.Duration("eval-timeout", tabguard.DefaultEvalTimeout, "deadline of each tab call")
	flag.Parse()
	log.SetOutput(os.Stderr) // stdout carries the protocol
	if err := run(*evalTimeout); err != nil {
		log.Fatal(err)
	}
}

func run(evalTimeout time.Duration) error {
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

	s, tools, err := newServer(b, &tabguard.Options{EvalTimeout: evalTimeout})
	if err != nil {
		return err
	}
	defer func() {
		if err := tools.Close(); err != nil {
			log.Print(err)
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return s.Run(ctx, &mcp.StdioTransport{})
}
