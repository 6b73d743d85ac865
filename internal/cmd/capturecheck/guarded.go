package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard"
)

// guardedCaptures are the captures measured through a watcher: the same
// calls a program makes with tabguard in place of plain rod.
func guardedCaptures() []guardedCapture {
	return []guardedCapture{
		{"viewport", func(ctx context.Context, w *tabguard.Watcher) string {
			png, err := w.Screenshot(ctx, false, nil)
			return pngOr(png, err)
		}},
		{"full page", func(ctx context.Context, w *tabguard.Watcher) string {
			png, err := w.Screenshot(ctx, true, nil)
			return pngOr(png, err)
		}},
		{"PDF stream", func(ctx context.Context, w *tabguard.Watcher) string {
			h := startHeap()
			n, err := w.PDFTo(ctx, io.Discard, nil)
			peak := h.stop()
			if err != nil {
				return err.Error()
			}
			return fmt.Sprintf("PDF %s in chunks of %s; Go heap peak +%s", size(int(n)), size(tabguard.DefaultPDFChunk), size(int(peak)))
		}},
	}
}

// guardedCapture is one capture through a watcher.
type guardedCapture struct {
	name string
	run  func(ctx context.Context, w *tabguard.Watcher) string
}

// guarded prints the table of the captures through a watcher, then, for
// the cases that stall, what Recover found and did and what the tab kept.
func (m *meter) guarded(only string) {
	fmt.Printf("\n| capture | case | tabguard, EvalTimeout %v: outcome | time |\n|---|---|---|---|\n", m.deadline)
	for _, c := range cases() {
		if !chosen(only, c.name) {
			continue
		}
		for _, capt := range guardedCaptures() {
			if !c.wants(capt.name) {
				continue
			}
			o, _ := m.watched(c, func(ctx context.Context, _ *rod.Page, w *tabguard.Watcher) string { return capt.run(ctx, w) })
			fmt.Printf("| %s | %s | %s | %s |\n", capt.name, c.name, o.text, o.took())
		}
	}
	fmt.Printf("\n| case | Recover after a viewport capture timed out | URL path, history length, sessionStorage, cookies: before → after |\n|---|---|---|\n")
	for _, c := range cases() {
		if (c.name != "busy script" && c.name != "chrome://hang") || !chosen(only, c.name) {
			continue
		}
		var kept string
		o, before := m.watched(c, func(ctx context.Context, p *rod.Page, w *tabguard.Watcher) string {
			if _, err := w.Screenshot(ctx, false, nil); err == nil {
				return "the capture answered: nothing to recover"
			}
			start := time.Now()
			r, err := w.Recover(ctx)
			took := time.Since(start)
			if err != nil {
				return fmt.Sprintf("%v; error: %v", r, err)
			}
			kept = keeps(ctx, w)
			return fmt.Sprintf("%v, in %.2f s", r, took.Seconds())
		})
		fmt.Printf("| %s | %s | %s → %s |\n", c.name, o.text, before, kept)
	}
}

// watched opens the case's tab in a fresh browser, watches it, gives it a
// session (before is what it keeps, read then), puts it in its state and
// runs fn under the deadline; the time is fn's.
func (m *meter) watched(c tabCase, fn func(ctx context.Context, p *rod.Page, w *tabguard.Watcher) string) (o outcome, before string) {
	b, stop, err := m.launch(false)
	if err != nil {
		return outcome{text: "launch: " + err.Error()}, ""
	}
	defer stop()
	p, err := m.openPlain(b, c.path)
	if err != nil {
		return outcome{text: "setup: " + describe(err)}, ""
	}
	w, err := tabguard.Watch(p, &tabguard.Options{EvalTimeout: m.deadline})
	if err != nil {
		return outcome{text: "watch: " + err.Error()}, ""
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*m.deadline)
	defer cancel()
	if err := m.session(ctx, p, w); err != nil {
		return outcome{text: "setup: " + err.Error()}, ""
	}
	before = keeps(ctx, w)
	note := ""
	if c.setup != nil {
		if note, err = c.setup(ctx, m, b, p); err != nil {
			return outcome{text: "setup: " + describe(err)}, ""
		}
	}
	start := time.Now()
	o = outcome{text: fn(ctx, p, w), dur: time.Since(start)}
	if note != "" {
		o.text += " (" + note + ")"
	}
	return o, before
}

// session gives the tab what a recovery may keep or lose: a visit to /p1
// (which sets a session and a persistent cookie), then its own page again,
// and a sessionStorage entry.
func (m *meter) session(ctx context.Context, p *rod.Page, w *tabguard.Watcher) error {
	v, err := w.Eval(ctx, `() => location.pathname`)
	if err != nil {
		return err
	}
	path := v.Value.Str()
	for _, u := range []string{m.srv + "/p1", m.srv + path} {
		if err := w.Navigate(ctx, u); err != nil {
			return err
		}
	}
	if err := loaded(ctx, p, path); err != nil {
		return err
	}
	_, err = w.Eval(ctx, `() => { sessionStorage.s = "kept" }`)
	return err
}

// openPlain creates a tab at path and waits for its load. The page is
// attached with no deadline, as a program's is: a watcher lives as long as
// its page's browser context.
func (m *meter) openPlain(b *rod.Browser, path string) (*rod.Page, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	t, err := proto.TargetCreateTarget{URL: m.srv + path}.Call(b.Context(ctx))
	if err != nil {
		return nil, err
	}
	p, err := b.PageFromTarget(t.TargetID)
	if err != nil {
		return nil, err
	}
	return p, loaded(ctx, p, path)
}

// keeps is what a recovery may keep or lose of the tab.
func keeps(ctx context.Context, w *tabguard.Watcher) string {
	v, err := w.Eval(ctx, `() => [location.pathname, history.length, sessionStorage.s, document.cookie].join(" ")`)
	if err != nil {
		return err.Error()
	}
	return v.Value.Str()
}

// pngOr is a PNG's size, or the watcher's error as it reads.
func pngOr(png []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return "PNG " + size(len(png))
}
