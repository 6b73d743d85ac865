package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// rodRow runs rod's own transport (rod.New().ControlURL(url).Connect())
// in a child process, this program with -rod-child, with an eval in flight
// at the pool's session TIMEOUT, and reports how that process ended: rod's
// reader panics on its own goroutine, which no importer can recover.
func rodRow(ctx context.Context, p *pool) row {
	r := row{name: fmt.Sprintf("for comparison, rod's own transport (`rod.New().ControlURL(url).Connect()`, in a child process): session `TIMEOUT=%d` expires with an eval in flight", p.cfg.timeout.Milliseconds())}
	exe, err := os.Executable()
	if err != nil {
		return r.miss("%v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, p.cfg.timeout+30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(cctx, exe, "-rod-child", p.url)
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	ended := time.Now()
	panicLine := firstLine(stderr.String(), "panic: ")
	if logged, lerr := p.loggedBefore(timeoutLogged, ended); lerr == nil {
		r.took = fmt.Sprintf("the process ended %s after browserless logged the timeout", dur(ended.Sub(logged)))
	} else {
		r.took = fmt.Sprintf("the process ended %s after it started", dur(ended.Sub(start)))
	}
	switch {
	case err == nil:
		r.returned = "the process lived on: " + cell(strings.TrimSpace(stderr.String()))
		return r.miss("rod's transport did not panic")
	case panicLine == "":
		r.returned = "the process ended: " + cell(err.Error()) + ": " + cell(lastLine(stderr.String()))
		return r.miss("the child process ended without a panic: %v", err)
	}
	r.returned = "the process died: `" + strings.ReplaceAll(cell(panicLine), "`", "'") + "`"
	return r
}

// rodChild connects with rod's own transport to url, opens a tab and
// evaluates a promise that never settles, all under a deadline; it returns
// only if the process survives what the pool sends.
func rodChild(ctx context.Context, url string) int {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	b := rod.New().ControlURL(url).Context(ctx)
	if err := b.Connect(); err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		return 1
	}
	page, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open a tab:", err)
		return 1
	}
	_, err = page.Eval(neverSettles)
	fmt.Fprintln(os.Stderr, "rod's transport survived; the eval returned:", err)
	return 0
}

// firstLine returns the first line of s that starts with prefix.
func firstLine(s, prefix string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return sc.Text()
		}
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
