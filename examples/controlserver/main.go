// Command controlserver is an HTTP control server over one headless
// Chromium, with every tab call made deadline-safe by tabguard:
//
//	go run ./examples/controlserver -addr 127.0.0.1:8090
//
//	curl -d '{"url":"http://127.0.0.1:8000/"}' 127.0.0.1:8090/browser/tabs
//	curl '127.0.0.1:8090/browser/dom?tab=ID&max_bytes=2048'
//	curl '127.0.0.1:8090/browser/clickables?tab=ID'
//	curl -d '{"tab":"ID","dy":600}' 127.0.0.1:8090/browser/scroll
//	curl -d '{"tab":"ID","x":100,"y":200}' 127.0.0.1:8090/browser/cursor
//
// A tab that cannot answer gets a 500 whose JSON body is the real reason,
// such as {"error": "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)"};
// bad input gets a 400. Client in client.go calls it with timeouts set.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/tabguard/tabguard"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	evalTimeout := flag.Duration("eval-timeout", tabguard.DefaultEvalTimeout, "deadline of each tab call")
	flag.Parse()
	if err := run(*addr, *evalTimeout); err != nil {
		log.Fatal(err)
	}
}

func run(addr string, evalTimeout time.Duration) error {
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

	s, err := NewServer(b, &tabguard.Options{EvalTimeout: evalTimeout}, 0)
	if err != nil {
		return err
	}
	defer func() {
		if err := s.Close(); err != nil {
			log.Print(err)
		}
	}()
	srv := &http.Server{
		Addr:              addr,
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      openTimeout + DefaultLoadTimeout + 10*time.Second, // the longest handler, plus a margin
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // ListenAndServe returns ErrServerClosed either way
	}()
	log.Printf("control server on http://%s", addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
