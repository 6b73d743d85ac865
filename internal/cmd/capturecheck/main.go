// Command capturecheck measures what Chrome does with a screenshot or a PDF
// of a tab that is not healthy: hidden behind another tab, frozen, busy in a
// script loop, hung outside JavaScript (chrome://hang), or 30,000 px tall.
// Every capture runs in a browser of its own, started with rod's launcher
// from /usr/bin/chromium, and has one deadline (-deadline, 10 s by default),
// so no row can hang the run. It sends the captures as raw CDP commands
// through rod's proto types, and beside them calls plain rod
// (Page.Screenshot, Page.PDF) on the same case with the same deadline. It
// also asks each case the questions a guard asks a timed-out tab, and tries
// two ways back from a hung renderer: Page.crash then Page.reload, and
// Target.closeTarget then Target.createTarget. With -guarded (the default)
// it runs the captures through a tabguard watcher too, and Watcher.Recover
// on the cases that stall.
//
//	go run ./internal/cmd/capturecheck [-headed] [-cases healthy,frozen] [-recovery=false]
//
// It prints markdown tables on stdout. -headed runs the browser without
// --headless on a private Xvfb display.
package main

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/tabguard/tabguard/internal/xvfb"
)

// probeBound bounds each question asked of a tab, as the engine's probes are.
const probeBound = 2 * time.Second

func main() {
	headed := flag.Bool("headed", false, "run Chromium without --headless, on a private Xvfb display")
	only := flag.String("cases", "", "run only these cases, e.g. healthy,frozen (default: all)")
	recovery := flag.Bool("recovery", true, "also measure the ways back from a hung renderer")
	guarded := flag.Bool("guarded", true, "also run the captures, and Recover, through a tabguard watcher")
	noRod := flag.Bool("no-rod", false, "skip the plain rod column")
	deadline := flag.Duration("deadline", 10*time.Second, "deadline of each capture")
	flag.Parse()
	if err := run(*headed, *only, *recovery, *guarded, !*noRod, *deadline); err != nil {
		fmt.Fprintln(os.Stderr, "capturecheck:", err)
		os.Exit(2)
	}
}

func run(headed bool, only string, recovery, guarded, withRod bool, deadline time.Duration) error {
	srv := httptest.NewServer(pages())
	defer srv.Close()
	m := &meter{srv: srv.URL, deadline: deadline}
	if headed {
		d, err := xvfb.Start()
		if err != nil {
			return err
		}
		defer d.Stop()
		m.display = d
	}
	b, stop, err := m.launch(true)
	if err != nil {
		return err
	}
	v, err := proto.BrowserGetVersion{}.Call(b)
	stop()
	if err != nil {
		return err
	}
	mode := "headless"
	if headed {
		mode = "headed (Xvfb)"
	}
	fmt.Printf("%s, %s, rod %s, deadline %v, GOMAXPROCS %d\n\n", v.Product, mode, rodVersion(), deadline, runtime.GOMAXPROCS(0))
	fmt.Println("| capture | case | raw CDP: outcome | time | plain rod: outcome | time |")
	fmt.Println("|---|---|---|---|---|---|")
	var probes []string
	for _, c := range cases() {
		if !chosen(only, c.name) {
			continue
		}
		for _, capt := range captures() {
			if !c.wants(capt.name) {
				continue
			}
			raw := m.measure(c, capt.name, capt.raw, false)
			rodOut := outcome{text: capt.rodNote}
			if !withRod {
				rodOut = outcome{text: "not run"}
			} else if capt.rod != nil {
				rodOut = m.measure(c, capt.name, capt.rod, true)
			}
			fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", capt.name, c.name, raw.text, raw.took(), rodOut.text, rodOut.took())
		}
		probes = append(probes, fmt.Sprintf("| %s | %s |", c.name, m.probe(c)))
	}
	fmt.Println("\n| case | state after setup | visibilityState eval | timer promise | Performance.getMetrics | Browser.getVersion |")
	fmt.Println("|---|---|---|---|---|---|")
	fmt.Println(strings.Join(probes, "\n"))
	if guarded {
		m.guarded(only)
	}
	if recovery {
		fmt.Println()
		fmt.Println(m.terminate())
		for _, fault := range []string{"hang", "busy"} {
			for _, way := range []string{"crash+reload", "close+create", "close+create, another tab open"} {
				fmt.Println(m.recover(fault, way))
			}
		}
	}
	return nil
}

// chosen reports whether -cases (only, empty for all) names case name.
func chosen(only, name string) bool {
	return only == "" || strings.Contains(","+only+",", ","+name+",")
}

// rodVersion is the version of rod built into this program.
func rodVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/go-rod/rod" {
				return d.Version
			}
		}
	}
	return "(unknown)"
}

// meter launches one browser a measurement.
type meter struct {
	srv      string
	deadline time.Duration
	display  *xvfb.Display
}

// launch starts Chromium and connects rod to it; stop closes both. raw
// turns off rod's default device emulation, so that raw CDP sees Chrome's
// own viewport; plain rod keeps it, as a plain rod user has it.
func (m *meter) launch(raw bool) (*rod.Browser, func(), error) {
	l := launcher.New().Bin("/usr/bin/chromium").Headless(m.display == nil).NoSandbox(true)
	if m.display != nil {
		l = l.Env(m.display.Env(os.Environ())...)
	}
	u, err := l.Launch()
	if err != nil {
		return nil, nil, err
	}
	b := rod.New().ControlURL(u)
	if raw {
		b = b.NoDefaultDevice()
	}
	if err := b.Connect(); err != nil {
		l.Kill()
		l.Cleanup()
		return nil, nil, err
	}
	return b, func() { _ = b.Timeout(5 * time.Second).Close(); l.Kill(); l.Cleanup() }, nil
}

// outcome is what one capture returned and how long it took.
type outcome struct {
	text string
	dur  time.Duration
}

func (o outcome) took() string {
	if o.dur == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s", o.dur.Seconds())
}

// measure opens the case's tab in a fresh browser, puts it in its state and
// runs one capture under the deadline.
func (m *meter) measure(c tabCase, name string, fn captureFunc, plain bool) outcome {
	b, stop, err := m.launch(!plain)
	if err != nil {
		return outcome{text: "launch: " + err.Error()}
	}
	defer stop()
	p, note, err := m.open(b, c)
	if err != nil {
		return outcome{text: "setup: " + describe(err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.deadline)
	defer cancel()
	start := time.Now()
	text := fn(p.Context(ctx))
	o := outcome{text: text, dur: time.Since(start)}
	if note != "" {
		o.text += " (" + note + ")"
	}
	return o
}

// open creates the case's tab, waits for its load and applies its setup.
func (m *meter) open(b *rod.Browser, c tabCase) (*rod.Page, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	t, err := proto.TargetCreateTarget{URL: m.srv + c.path}.Call(b.Context(ctx))
	if err != nil {
		return nil, "", err
	}
	p, err := b.Context(ctx).PageFromTarget(t.TargetID)
	if err != nil {
		return nil, "", err
	}
	if err := loaded(ctx, p, c.path); err != nil {
		return nil, "", err
	}
	if err := (proto.PageEnable{}).Call(p.Context(ctx)); err != nil {
		return nil, "", err
	}
	note := ""
	if c.setup != nil {
		note, err = c.setup(ctx, m, b, p)
	}
	return p.Context(context.Background()), note, err
}

// loaded waits until the tab's document is path's and has loaded: a tab
// just created may still show its initial blank document.
func loaded(ctx context.Context, p *rod.Page, path string) error {
	for {
		r, err := proto.RuntimeEvaluate{Expression: "location.pathname + ' ' + document.readyState", ReturnByValue: true}.Call(p.Context(ctx))
		if err == nil && r.Result.Value.Str() == path+" complete" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not load: %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tabCase is one state of the tab under capture.
type tabCase struct {
	name  string
	path  string
	setup func(ctx context.Context, m *meter, b *rod.Browser, p *rod.Page) (string, error)
	only  []string // captures run on this case; nil means every capture but the extra chunk sizes
}

func (c tabCase) wants(capture string) bool {
	if c.only == nil {
		return !strings.Contains(capture, "size=")
	}
	for _, n := range c.only {
		if n == capture {
			return true
		}
	}
	return false
}

func cases() []tabCase {
	all := []string{"viewport", "full page", "PDF one message", "PDF stream"}
	return []tabCase{
		{name: "healthy", path: "/doc", only: append(all, "PDF stream size=64KiB", "PDF stream size=1MiB", "PDF stream size=16MiB")},
		{name: "background", path: "/doc", setup: background},
		{name: "frozen", path: "/doc", setup: func(ctx context.Context, _ *meter, _ *rod.Browser, p *rod.Page) (string, error) {
			return "", proto.PageSetWebLifecycleState{State: proto.PageSetWebLifecycleStateStateFrozen}.Call(p.Context(ctx))
		}},
		{name: "busy script", path: "/doc", setup: func(ctx context.Context, _ *meter, _ *rod.Browser, p *rod.Page) (string, error) {
			_, err := proto.RuntimeEvaluate{Expression: "setTimeout(() => { for(;;){} }, 0)"}.Call(p.Context(ctx))
			time.Sleep(200 * time.Millisecond) // the loop starts on the next task
			return "", err
		}},
		{name: "chrome://hang", path: "/doc", setup: hang},
		{name: "30,000 px tall", path: "/tall", only: []string{"full page", "viewport"}},
	}
}

// background brings a second tab of the same window to the front.
func background(ctx context.Context, m *meter, b *rod.Browser, p *rod.Page) (string, error) {
	t, err := proto.TargetCreateTarget{URL: m.srv + "/other"}.Call(b.Context(ctx))
	if err != nil {
		return "", err
	}
	o, err := b.Context(ctx).PageFromTarget(t.TargetID)
	if err != nil {
		return "", err
	}
	if err := loaded(ctx, o, "/other"); err != nil {
		return "", err
	}
	if err := (proto.PageBringToFront{}).Call(o.Context(ctx)); err != nil {
		return "", err
	}
	time.Sleep(300 * time.Millisecond)
	return "", nil
}

// hang navigates the tab to chrome://hang and waits for its target to show
// that URL; a refusal is the case's finding, and the note says it.
func hang(ctx context.Context, _ *meter, b *rod.Browser, p *rod.Page) (string, error) {
	nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	nav, err := proto.PageNavigate{URL: "chrome://hang"}.Call(p.Context(nctx))
	cancel()
	said := "navigate answered"
	switch {
	case err != nil:
		said = "navigate: " + describe(err)
	case nav.ErrorText != "":
		said = "navigate errorText " + nav.ErrorText
	}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		info, err := proto.TargetGetTargetInfo{TargetID: p.TargetID}.Call(b.Context(ctx))
		if err == nil && info.TargetInfo.URL == "chrome://hang/" {
			return "", nil
		}
	}
	return "not hung: " + said, nil
}

// captureFunc runs one capture on p, whose context holds the deadline, and
// says what it got.
type captureFunc func(p *rod.Page) string

type capture struct {
	name     string
	raw, rod captureFunc
	rodNote  string // why plain rod has no row, when rod is nil
}

func captures() []capture {
	return []capture{
		{"viewport", viewport, func(p *rod.Page) string {
			png, err := p.Screenshot(false, nil)
			return bytesOr("PNG", len(png), err)
		}, ""},
		{"full page", fullPage, func(p *rod.Page) string {
			png, err := p.Screenshot(true, nil)
			return bytesOr("PNG", len(png), err)
		}, ""},
		{"PDF one message", pdfMessage, nil, "n/a: Page.PDF always streams"},
		{"PDF stream", pdfStream(0), rodPDF, ""},
		{"PDF stream size=64KiB", pdfStream(64 << 10), nil, "n/a: rod reads with Chrome's default size"},
		{"PDF stream size=1MiB", pdfStream(1 << 20), nil, "n/a: rod reads with Chrome's default size"},
		{"PDF stream size=16MiB", pdfStream(16 << 20), nil, "n/a: rod reads with Chrome's default size"},
	}
}

func viewport(p *rod.Page) string {
	shot, err := proto.PageCaptureScreenshot{}.Call(p)
	if err != nil {
		return describe(err)
	}
	return bytesOr("PNG", len(shot.Data), nil)
}

func fullPage(p *rod.Page) string {
	lm, err := proto.PageGetLayoutMetrics{}.Call(p)
	if err != nil {
		return "Page.getLayoutMetrics: " + describe(err)
	}
	w, h := lm.CSSContentSize.Width, lm.CSSContentSize.Height
	shot, err := proto.PageCaptureScreenshot{CaptureBeyondViewport: true, Clip: &proto.PageViewport{Width: w, Height: h, Scale: 1}}.Call(p)
	if err != nil {
		return fmt.Sprintf("clip %.0fx%.0f: %s", w, h, describe(err))
	}
	return fmt.Sprintf("%s, clip %.0fx%.0f", bytesOr("PNG", len(shot.Data), nil), w, h)
}

var pageObject = regexp.MustCompile(`/Type\s*/Page[^s]`)

func pdfMessage(p *rod.Page) string {
	h := startHeap()
	res, err := proto.PagePrintToPDF{}.Call(p)
	peak := h.stop()
	if err != nil {
		return "Page.printToPDF: " + describe(err)
	}
	return fmt.Sprintf("PDF %s, %d pages; message %s base64; Go heap peak +%s",
		size(len(res.Data)), len(pageObject.FindAll(res.Data, -1)), size(base64.StdEncoding.EncodedLen(len(res.Data))), size(int(peak)))
}

func pdfStream(chunk int) captureFunc {
	return func(p *rod.Page) string {
		h := startHeap()
		text := readStream(p, chunk)
		return fmt.Sprintf("%s; Go heap peak +%s", text, size(int(h.stop())))
	}
}

func readStream(p *rod.Page, chunk int) string {
	res, err := proto.PagePrintToPDF{TransferMode: proto.PagePrintToPDFTransferModeReturnAsStream}.Call(p)
	if err != nil {
		return "Page.printToPDF: " + describe(err)
	}
	defer func() {
		_ = proto.IOClose{Handle: res.Stream}.Call(p.Context(context.Background()).Timeout(2 * time.Second))
	}()
	req := proto.IORead{Handle: res.Stream}
	if chunk > 0 {
		req.Size = &chunk
	}
	var n, total, largest int
	var pages int
	for {
		r, err := req.Call(p)
		if err != nil {
			return fmt.Sprintf("IO.read after %d chunks (%s): %s", n, size(total), describe(err))
		}
		data := []byte(r.Data)
		if r.Base64Encoded {
			if data, err = base64.StdEncoding.DecodeString(r.Data); err != nil {
				return "IO.read: " + err.Error()
			}
		}
		n++
		total += len(data)
		largest = max(largest, len(data))
		pages += len(pageObject.FindAll(data, -1))
		if r.EOF {
			break
		}
	}
	return fmt.Sprintf("PDF %s, %d pages; %d chunks, largest %s", size(total), pages, n, size(largest))
}

func rodPDF(p *rod.Page) string {
	h := startHeap()
	r, err := p.PDF(&proto.PagePrintToPDF{})
	if err != nil {
		h.stop()
		return "Page.PDF: " + describe(err)
	}
	pdf, err := io.ReadAll(r)
	peak := h.stop()
	if err != nil {
		return fmt.Sprintf("read after %s: %s", size(len(pdf)), describe(err))
	}
	return fmt.Sprintf("PDF %s; Go heap peak +%s", size(len(pdf)), size(int(peak)))
}

// describe says what a failed call got: no answer, Chrome's error, or
// anything else.
func describe(err error) string {
	var ce *cdp.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer by the deadline"
	case errors.As(err, &ce):
		if ce.Data != "" {
			return fmt.Sprintf("CDP error %d %q (%s)", ce.Code, ce.Message, ce.Data)
		}
		return fmt.Sprintf("CDP error %d %q", ce.Code, ce.Message)
	}
	return err.Error()
}

func bytesOr(kind string, n int, err error) string {
	if err != nil {
		return describe(err)
	}
	return kind + " " + size(n)
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// heap samples the Go heap while a capture runs; stop returns the peak
// above the heap at the start, after a GC.
type heap struct {
	base, peak uint64
	done       chan struct{}
	wg         sync.WaitGroup
}

func startHeap() *heap {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := &heap{base: ms.HeapAlloc, peak: ms.HeapAlloc, done: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			h.peak = max(h.peak, ms.HeapAlloc)
			select {
			case <-h.done:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heap) stop() uint64 {
	close(h.done)
	h.wg.Wait()
	return h.peak - h.base
}

// probe asks the case's tab, at once, what the engine asks a timed-out tab.
func (m *meter) probe(c tabCase) string {
	b, stop, err := m.launch(true)
	if err != nil {
		return "launch: " + err.Error()
	}
	defer stop()
	p, note, err := m.open(b, c)
	if err != nil {
		return "setup: " + describe(err)
	}
	if note == "" {
		note = "as set up"
	}
	calls := []func(*rod.Page) (string, error){
		func(p *rod.Page) (string, error) {
			r, err := proto.RuntimeEvaluate{Expression: "document.visibilityState", ReturnByValue: true}.Call(p)
			if err != nil {
				return "", err
			}
			return r.Result.Value.Str(), nil
		},
		func(p *rod.Page) (string, error) {
			_, err := proto.RuntimeEvaluate{Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: true}.Call(p)
			return "", err
		},
		func(p *rod.Page) (string, error) {
			_, err := proto.PerformanceGetMetrics{}.Call(p)
			return "", err
		},
		func(p *rod.Page) (string, error) {
			_, err := proto.BrowserGetVersion{}.Call(b.Context(p.GetContext()))
			return "", err
		},
	}
	out := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), probeBound)
			defer cancel()
			start := time.Now()
			v, err := call(p.Context(ctx))
			took := time.Since(start)
			switch {
			case err != nil:
				out[i] = describe(err)
			case v != "":
				out[i] = fmt.Sprintf("%q in %d ms", v, took.Milliseconds())
			default:
				out[i] = fmt.Sprintf("answered in %d ms", took.Milliseconds())
			}
		}()
	}
	wg.Wait()
	return note + " | " + strings.Join(out, " | ")
}

// events records when each CDP event of interest arrived.
type events struct {
	mu sync.Mutex
	t0 time.Time
	at map[string]time.Duration
}

func (e *events) mark(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.at[name]; !ok {
		e.at[name] = time.Since(e.t0)
	}
}

func (e *events) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.t0 = time.Now()
	e.at = map[string]time.Duration{}
}

func (e *events) wait(name string, d time.Duration) string {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		e.mu.Lock()
		at, ok := e.at[name]
		e.mu.Unlock()
		if ok {
			return fmt.Sprintf("%s after %d ms", name, at.Milliseconds())
		}
		if time.Now().After(end) {
			return fmt.Sprintf("no %s in %v", name, d)
		}
	}
}

// recover hangs a tab that has history, sessionStorage and a cookie, then
// tries one way back and says what the tab kept.
func (m *meter) recover(fault, way string) string {
	b, stop, err := m.launch(true)
	if err != nil {
		return "launch: " + err.Error()
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	report := []string{fmt.Sprintf("**%s, then %s**", fault, way)}
	say := func(format string, a ...any) { report = append(report, "- "+fmt.Sprintf(format, a...)) }
	if err := (proto.TargetSetDiscoverTargets{Discover: true}).Call(b.Context(ctx)); err != nil {
		return describe(err)
	}
	ev := &events{}
	ev.reset()
	go b.Context(ctx).EachEvent(
		func(e *proto.TargetTargetCrashed) {
			ev.mark("Target.targetCrashed status " + e.Status)
			ev.mark("Target.targetCrashed")
		},
		func(e *proto.TargetTargetDestroyed) { ev.mark("Target.targetDestroyed") },
	)()
	t, err := proto.TargetCreateTarget{URL: m.srv + "/p1"}.Call(b.Context(ctx))
	if err != nil {
		return describe(err)
	}
	p, err := b.Context(ctx).PageFromTarget(t.TargetID)
	if err != nil {
		return describe(err)
	}
	go p.Context(ctx).EachEvent(
		func(*proto.InspectorTargetCrashed) { ev.mark("Inspector.targetCrashed") },
		func(*proto.PageLoadEventFired) { ev.mark("Page.loadEventFired") },
	)()
	if err := loaded(ctx, p, "/p1"); err != nil {
		return describe(err)
	}
	_ = proto.InspectorEnable{}.Call(p.Context(ctx))
	if _, err := (proto.PageNavigate{URL: m.srv + "/p2"}).Call(p.Context(ctx)); err != nil {
		return describe(err)
	}
	if err := loaded(ctx, p, "/p2"); err != nil {
		return describe(err)
	}
	_, _ = proto.RuntimeEvaluate{Expression: "sessionStorage.setItem('s', 'kept')"}.Call(p.Context(ctx))
	say("before: %s", tabState(b, p))
	info, err := proto.TargetGetTargetInfo{TargetID: t.TargetID}.Call(b.Context(ctx))
	if err != nil {
		return describe(err)
	}
	if fault == "hang" {
		note, _ := hang(ctx, m, b, p)
		if note == "" {
			note = "target URL chrome://hang/"
		}
		say("chrome://hang: %s", note)
	} else {
		_, _ = proto.RuntimeEvaluate{Expression: "setTimeout(() => { for(;;){} }, 0)"}.Call(p.Context(ctx))
		time.Sleep(200 * time.Millisecond)
	}
	say("while hung: %s", tabState(b, p))
	ev.reset()
	if way == "crash+reload" {
		cctx, ccancel := context.WithTimeout(ctx, m.deadline)
		start := time.Now()
		err := proto.PageCrash{}.Call(p.Context(cctx))
		ccancel()
		say("Page.crash: %s in %d ms", orOK(err), time.Since(start).Milliseconds())
		say("%s; %s", ev.wait("Inspector.targetCrashed", 5*time.Second), ev.wait("Target.targetCrashed", time.Second))
		ev.mu.Lock()
		for k := range ev.at {
			if strings.HasPrefix(k, "Target.targetCrashed status ") {
				report = append(report, "  - "+strings.TrimPrefix(k, "Target.targetCrashed "))
			}
		}
		ev.mu.Unlock()
		ev.reset()
		rctx, rcancel := context.WithTimeout(ctx, m.deadline)
		start = time.Now()
		err = proto.PageReload{}.Call(p.Context(rctx))
		rcancel()
		say("Page.reload: %s in %d ms; %s", orOK(err), time.Since(start).Milliseconds(), ev.wait("Page.loadEventFired", m.deadline))
		say("after: %s", tabState(b, p))
		return strings.Join(report, "\n") + "\n"
	}
	if way == "close+create, another tab open" {
		if _, err := (proto.TargetCreateTarget{URL: m.srv + "/other", BrowserContextID: info.TargetInfo.BrowserContextID}).Call(b.Context(ctx)); err != nil {
			say("Target.createTarget /other: %s", describe(err))
		}
	}
	say("tabs before the close: %s", pageTargets(ctx, b))
	cctx, ccancel := context.WithTimeout(ctx, m.deadline)
	start := time.Now()
	_, err = proto.TargetCloseTarget{TargetID: t.TargetID}.Call(b.Context(cctx))
	ccancel()
	say("Target.closeTarget: %s in %d ms; %s", orOK(err), time.Since(start).Milliseconds(), ev.wait("Target.targetDestroyed", 5*time.Second))
	start = time.Now()
	n, err := proto.TargetCreateTarget{URL: m.srv + "/p2", BrowserContextID: info.TargetInfo.BrowserContextID}.Call(b.Context(ctx))
	if err != nil {
		say("Target.createTarget: %s", describe(err))
		return strings.Join(report, "\n") + "\n"
	}
	np, err := b.Context(ctx).PageFromTarget(n.TargetID)
	if err == nil {
		err = loaded(ctx, np, "/p2")
	}
	say("Target.createTarget same context, /p2: %s, loaded in %d ms", orOK(err), time.Since(start).Milliseconds())
	say("after: %s", tabState(b, np))
	return strings.Join(report, "\n") + "\n"
}

// terminate starts a screenshot of a tab busy in a loop, stops the loop
// with Runtime.terminateExecution 2 s later, and says whether the waiting
// screenshot then answers, and whether a PDF taken after it does.
func (m *meter) terminate() string {
	b, stop, err := m.launch(true)
	if err != nil {
		return "launch: " + err.Error()
	}
	defer stop()
	var c tabCase
	for _, c = range cases() {
		if c.name == "busy script" {
			break
		}
	}
	p, _, err := m.open(b, c)
	if err != nil {
		return "setup: " + describe(err)
	}
	report := []string{"**busy, a screenshot waiting, then Runtime.terminateExecution**"}
	ctx, cancel := context.WithTimeout(context.Background(), m.deadline)
	defer cancel()
	start := time.Now()
	shot := make(chan string, 1)
	go func() { shot <- viewport(p.Context(ctx)) }()
	time.Sleep(2 * time.Second)
	tctx, tcancel := context.WithTimeout(context.Background(), probeBound)
	err = (proto.RuntimeTerminateExecution{}).Call(p.Context(tctx))
	tcancel()
	report = append(report, fmt.Sprintf("- Runtime.terminateExecution at %d ms: %s", time.Since(start).Milliseconds(), orOK(err)))
	report = append(report, fmt.Sprintf("- the waiting screenshot: %s at %d ms", <-shot, time.Since(start).Milliseconds()))
	pctx, pcancel := context.WithTimeout(context.Background(), m.deadline)
	defer pcancel()
	start = time.Now()
	report = append(report, fmt.Sprintf("- a PDF after it: %s in %d ms", pdfMessage(p.Context(pctx)), time.Since(start).Milliseconds()))
	return strings.Join(report, "\n") + "\n"
}

// pageTargets lists the browser's tabs, with their browser context.
func pageTargets(ctx context.Context, b *rod.Browser) string {
	ts, err := proto.TargetGetTargets{}.Call(b.Context(ctx))
	if err != nil {
		return describe(err)
	}
	var out []string
	for _, t := range ts.TargetInfos {
		if t.Type == proto.TargetTargetInfoTypePage {
			out = append(out, fmt.Sprintf("%s in context %.8s", strings.TrimPrefix(t.URL, "http://"), t.BrowserContextID))
		}
	}
	return strings.Join(out, ", ")
}

func orOK(err error) string {
	if err != nil {
		return describe(err)
	}
	return "answered"
}

// tabState reads what a tab keeps: its history, its sessionStorage and the
// cookies its page sees.
func tabState(b *rod.Browser, p *rod.Page) string {
	ctx, cancel := context.WithTimeout(context.Background(), probeBound)
	defer cancel()
	pc := p.Context(ctx)
	var jar string
	if info, err := (proto.TargetGetTargetInfo{TargetID: p.TargetID}).Call(b.Context(ctx)); err != nil {
		jar = "cookie jar: " + describe(err)
	} else if cs, err := (proto.StorageGetCookies{BrowserContextID: info.TargetInfo.BrowserContextID}).Call(b.Context(ctx)); err != nil {
		jar = "cookie jar: " + describe(err)
	} else {
		var names []string
		for _, c := range cs.Cookies {
			names = append(names, c.Name+"="+c.Value)
		}
		jar = fmt.Sprintf("context %.8s cookie jar [%s]", info.TargetInfo.BrowserContextID, strings.Join(names, " "))
	}
	h, err := proto.PageGetNavigationHistory{}.Call(pc)
	var hist string
	if err != nil {
		hist = "history: " + describe(err)
	} else {
		var urls []string
		for _, e := range h.Entries {
			urls = append(urls, strings.TrimPrefix(e.URL, "http://"))
		}
		hist = fmt.Sprintf("history %d entries, current %d [%s]", len(h.Entries), h.CurrentIndex, strings.Join(urls, ", "))
	}
	r, err := proto.RuntimeEvaluate{Expression: "JSON.stringify({url: location.pathname, session: sessionStorage.getItem('s'), cookie: document.cookie})", ReturnByValue: true}.Call(pc)
	if err != nil {
		return hist + "; " + jar + "; page: " + describe(err)
	}
	return hist + "; " + jar + "; page: " + r.Result.Value.Str()
}

// pages serves the documents the captures are taken of.
func pages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/doc", func(w http.ResponseWriter, _ *http.Request) {
		// On screen a 1,500 px page; in print 200 pages of text, one a
		// section, each with an image of noise that no compression shrinks.
		var sb strings.Builder
		sb.WriteString(`<!doctype html><title>doc</title><style>
@media screen { .print { display: none } }
section { break-after: page; font: 11pt serif }
</style><h1>capturecheck</h1><div style="height:1400px;background:linear-gradient(#fff,#9cf)">screen</div><div class="print">`)
		para := strings.Repeat("The quick brown fox jumps over the lazy dog, and a guarded capture answers in time. ", 30)
		for i := 1; i <= 200; i++ {
			fmt.Fprintf(&sb, "<section><h2>Page %d</h2><img src=\"/img/%d.png\" width=160 height=160><p>%s</p></section>", i, i, para)
		}
		sb.WriteString("</div>")
		_, _ = io.WriteString(w, sb.String())
	})
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		var n uint64
		_, _ = fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/img/"), "%d.png", &n)
		img := image.NewRGBA(image.Rect(0, 0, 160, 160))
		rng := rand.New(rand.NewPCG(n, n))
		for i := range img.Pix {
			img.Pix[i] = byte(rng.Uint32())
		}
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i] = 0xff
		}
		w.Header().Set("Content-Type", "image/png")
		_ = png.Encode(w, img)
	})
	mux.HandleFunc("/tall", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>tall</title><body style="margin:0"><div style="height:30000px;background:linear-gradient(#f96,#69f)"></div>`)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>other</title><p>the tab in front</p>`)
	})
	mux.HandleFunc("/p1", func(w http.ResponseWriter, _ *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "c", Value: "1", Path: "/"})
		http.SetCookie(w, &http.Cookie{Name: "p", Value: "1", Path: "/", MaxAge: 3600})
		_, _ = io.WriteString(w, `<!doctype html><title>p1</title><p>one</p>`)
	})
	mux.HandleFunc("/p2", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>p2</title><p>two</p>`)
	})
	return mux
}
