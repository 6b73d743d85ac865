package chromedpguard_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// captureTab opens path of srv in a tab of browser, loaded and in front,
// and watches it with opts.
func captureTab(t *testing.T, browser context.Context, srv *httptest.Server, path string, opts *chromedpguard.Options) *fixture {
	t.Helper()
	f := &fixture{browser: browser, srv: srv, tab: newTab(t, browser)}
	require.NoError(t, chromedp.Do(f.tabWithin(t, 20*time.Second), chromedp.Navigate(srv.URL+path)), "load the page")
	_, _ = chromedp.Call(f.tabWithin(t, 5*time.Second), page.BringToFront, cdp.Empty{})
	f.w = watch(t, f.tab, opts)
	return f
}

// writes counts what a PDF writer was handed.
type writes struct {
	bytes.Buffer
	n, largest int
}

func (w *writes) Write(p []byte) (int, error) {
	w.n++
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// errFull is a writer's own error.
var errFull = errors.New("disk full")

type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errFull }

// mediaBox is the size in points of a PDF's first page, as Chrome writes
// it (/MediaBox [0 0 w h]), or 0, 0.
func mediaBox(pdf []byte) (w, h float64) {
	m := regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]`).FindSubmatch(pdf)
	if m == nil {
		return 0, 0
	}
	w, _ = strconv.ParseFloat(string(m[1]), 64)
	h, _ = strconv.ParseFloat(string(m[2]), 64)
	return w, h
}

// A PDF comes as a stream, a chunk a read: no write holds more than
// Options.PDFChunk, however long the document; the caller's parameters
// reach Chrome; a writer's error ends it, and the tab answers next. A
// PDF needs no paint, so the tab may be hidden: it lives in the shared
// browser.
func TestPDFStreamed(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	const chunk = 16 << 10
	f := captureTab(t, sharedBrowser, srv, "/doc?pages=40", &chromedpguard.Options{PDFChunk: chunk, EvalTimeout: time.Minute})
	ctx := within(t, 2*time.Minute)

	var out writes
	n, err := f.w.PDFTo(ctx, &out, &page.PrintToPDFParams{PrintBackground: ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, int64(out.Len()), n)
	assert.True(t, bytes.HasPrefix(out.Bytes(), []byte("%PDF-")), "a PDF")
	assert.Contains(t, string(bytes.TrimSpace(out.Bytes()[max(out.Len()-32, 0):])), "%%EOF", "whole")
	assert.LessOrEqual(t, out.largest, chunk, "no write over the chunk")
	assert.GreaterOrEqual(t, out.n, out.Len()/chunk, "a write a chunk")

	pdf, err := f.w.PDF(ctx, nil)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
	w, h := mediaBox(pdf)
	assert.Less(t, w, h, "Chrome's default: portrait")
	plain, err := f.w.PDF(ctx, &page.PrintToPDFParams{})
	require.NoError(t, err)
	assert.Less(t, len(plain), out.Len(), "PrintBackground reached Chrome: without it, no gradients")
	landscape, err := f.w.PDF(ctx, &page.PrintToPDFParams{Landscape: ptr(true), PageRanges: "1-2"})
	require.NoError(t, err)
	w, h = mediaBox(landscape)
	assert.Greater(t, w, h, "landscape reached Chrome")
	assert.Less(t, len(landscape), len(pdf), "two pages of 40")

	_, err = f.w.PDFTo(ctx, fullWriter{}, nil)
	assert.ErrorIs(t, err, errFull, "the writer's error, as it is")
	_, err = f.w.PDFTo(ctx, nil, nil)
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)

	assert.Equal(t, "doc", evalString(t, f.w, `() => document.title`), "the tab answers after a PDF cut short")
}

// crashTries is how many times a row that crashes the renderer under a
// call runs: Chrome's reply and its crash events race, so a few times in
// make test, and 20 in full (faultrows.Full).
func crashTries() int {
	if faultrows.Full() {
		return 20
	}
	return 3
}

// crashAfter crashes the tab's renderer (Page.crash) d from now, and
// returns a channel closed once the call has returned. Chrome never
// answers Page.crash, so it has 300 ms of its own.
func (f *fixture) crashAfter(d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		ctx, cancel := context.WithTimeout(f.tab, 300*time.Millisecond)
		defer cancel()
		_, _ = chromedp.Call(ctx, page.Crash, cdp.Empty{})
	}()
	return done
}

// A renderer that dies during a PDF answers ErrTabCrashed, with the
// crash's status, though Chrome answers the print "Printing failed"
// before it reports the crash; the next call is refused with the crash.
// The renderer is crashed 100 ms into the print of a 1,000-page document,
// which Chrome takes half a second and more to print (200 pages it may
// have printed by then). A print that fails with no crash answers
// Chrome's error, as it is.
func TestPDFCrashed(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	b := dedicated(t)
	for i := range crashTries() {
		f := captureTab(t, b, srv, "/doc?pages=1000", &chromedpguard.Options{EvalTimeout: time.Minute})
		ctx := within(t, time.Minute)
		crashed := f.crashAfter(100 * time.Millisecond)
		n, err := f.w.PDFTo(ctx, io.Discard, nil)
		<-crashed
		var be *chromedpguard.BlockedError
		require.ErrorAs(t, err, &be, "try %d: a crash 100 ms in, not the PDF whole (%d bytes)", i, n)
		assert.Equal(t, chromedpguard.ErrTabCrashed, be.Reason, "try %d: %v", i, err)
		assert.Equal(t, "crashed", be.Detail, "try %d: the crash's status", i)
		_, err = f.w.Eval(ctx, `() => 1`)
		assert.ErrorIs(t, err, chromedpguard.ErrTabCrashed, "try %d: the next call", i)
	}

	f := captureTab(t, b, srv, "/doc?pages=3", nil)
	ctx := within(t, time.Minute)
	_, err := f.w.PDF(ctx, &page.PrintToPDFParams{PageRanges: "50-60"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Page range exceeds page count", "Chrome's error")
	assert.NotErrorIs(t, err, chromedpguard.ErrTabCrashed)
	_, err = f.w.Eval(ctx, `() => 1`)
	require.NoError(t, err, "the tab answers")
}

// A renderer that dies while a printed document is read cuts nothing
// short: the stream is the browser's, and the PDF is whole (as long as the
// same page's PDF printed before, and ending in %%EOF) and answers nil.
// The tab is crashed as the writer takes the first of many chunks, once
// the watcher knows of the crash; the next call is refused with the crash.
func TestPDFReadAfterCrash(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	const chunk = 8 << 10
	f := captureTab(t, dedicated(t), srv, "/doc?pages=100", &chromedpguard.Options{PDFChunk: chunk, EvalTimeout: time.Minute})
	ctx := within(t, 2*time.Minute)
	want, err := f.w.PDF(ctx, nil)
	require.NoError(t, err)
	require.Greater(t, len(want), 4*chunk, "a document of many reads")

	out := &faultrows.CrashingWriter{Crash: func() { f.crash(t) }}
	n, err := f.w.PDFTo(ctx, out, nil)
	require.NoError(t, err, "the document was printed before the crash")
	faultrows.CheckWholePDF(t, want, out.Bytes(), n)
	assert.Greater(t, out.Writes, 4, "read after the crash")
	_, err = f.w.Eval(ctx, `() => 1`)
	assert.ErrorIs(t, err, chromedpguard.ErrTabCrashed, "the next call")
}

// A full-page screenshot of a page over Options.MaxCapturePixels is
// refused before it is painted, naming the size and the bound; the
// viewport still answers, and a 30,000 px page fits the default bound.
// Painting that page takes seconds on a loaded machine, so its tab has a
// minute: the row checks the bound, not Chrome's speed.
func TestFullPageBounded(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	b := dedicated(t)
	ctx := within(t, time.Minute)

	f := captureTab(t, b, srv, "/tall?px=3000", &chromedpguard.Options{MaxCapturePixels: 1_000_000})
	_, err := f.w.Screenshot(ctx, true, 100)
	require.ErrorIs(t, err, chromedpguard.ErrCaptureTooLarge)
	assert.Regexp(t, `^capture too large: full-page screenshot of \d+×3000 device pixels is \d+\.\d megapixels, over the bound of 1\.0 megapixels: `+
		`capture the viewport, or raise Options\.MaxCapturePixels$`, err.Error())
	png, err := f.w.Screenshot(ctx, false, 100)
	require.NoError(t, err, "the viewport is not bounded")
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")))

	tall := captureTab(t, b, srv, "/tall?px=30000", &chromedpguard.Options{EvalTimeout: time.Minute})
	png, err = tall.w.Screenshot(ctx, true, 100)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")))
}

// A hidden tab, and a frozen one, are no failures: their captures are
// never refused. A hidden tab's PDF answers; its screenshot waits for
// Chrome to paint the tab, 3.7 s on a quiet machine (docs/captures.md) and
// never, in a minute, on a loaded one: it answers, or its timeout says the
// tab is hidden and names the call that shows it. Brought to front, and
// frozen there, as a program freezes a tab it shows, every capture answers.
func TestCapturesHiddenAndFrozen(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	b := dedicated(t)
	f := captureTab(t, b, srv, "/doc?pages=3", &chromedpguard.Options{EvalTimeout: time.Minute})
	ctx := within(t, time.Minute)
	// chromedp gives each tab a window of its own: this one shares the
	// watched tab's window, the last one brought to front.
	front, cancel := context.WithTimeout(newTab(t, b, chromedp.WithNewWindow(false)), 20*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(front, chromedp.Navigate(srv.URL+"/p1")))
	_, err := chromedp.Call(front, page.BringToFront, cdp.Empty{})
	require.NoError(t, err, "a tab comes to front and hides this one")
	eventually(t, "the tab to be hidden", func() bool {
		state, err := chromedp.Run(f.tabWithin(t, 2*time.Second), chromedp.Evaluate[string](`document.visibilityState`))
		return err == nil && state == "hidden"
	})
	captures := func(state string) {
		png, err := f.w.Screenshot(ctx, false, 100)
		require.NoError(t, err, state)
		assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), state)
		png, err = f.w.Screenshot(ctx, true, 100)
		require.NoError(t, err, state)
		assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), state)
		pdf, err := f.w.PDF(ctx, nil)
		require.NoError(t, err, state)
		assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), state)
	}
	pdf, err := f.w.PDF(ctx, nil)
	require.NoError(t, err, "hidden")
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "hidden")
	shotCtx, cancelShot := context.WithTimeout(ctx, 2*time.Second)
	_, err = f.w.Screenshot(shotCtx, false, 100)
	cancelShot()
	if err != nil {
		var te *chromedpguard.TimeoutError
		require.ErrorAs(t, err, &te, "a hidden tab's screenshot answers, or times out saying why")
		assert.Equal(t, chromedpguard.TimeoutHidden, te.Cause)
		assert.Contains(t, err.Error(), "Page.bringToFront (page.BringToFront) shows it")
	}
	_, err = chromedp.Call(f.tabWithin(t, 10*time.Second), page.BringToFront, cdp.Empty{})
	require.NoError(t, err)
	eventually(t, "the tab to be visible", func() bool {
		state, err := chromedp.Run(f.tabWithin(t, 2*time.Second), chromedp.Evaluate[string](`document.visibilityState`))
		return err == nil && state == "visible"
	})
	_, err = chromedp.Call(f.tabWithin(t, 10*time.Second), page.SetWebLifecycleState,
		page.SetWebLifecycleStateParams{State: page.SetWebLifecycleStateStateFrozen})
	require.NoError(t, err)
	captures("frozen")
}

// stalledTab is a tab of a browser of its own that went to /p1 (which
// sets cookies), then /p2, with sessionStorage set, so a recovery can show
// what it kept.
func stalledTab(t *testing.T, opts *chromedpguard.Options) *fixture {
	t.Helper()
	srv := faultrows.CapturesServer(t)
	f := captureTab(t, dedicated(t), srv, "/p1", opts)
	ctx := within(t, time.Minute)
	require.NoError(t, f.w.Navigate(ctx, srv.URL+"/p2"))
	_, err := f.w.Eval(ctx, `() => { sessionStorage.s = "kept" }`)
	require.NoError(t, err)
	return f
}

// kept is what a tab holds that a recovery may lose.
func kept(t *testing.T, w *chromedpguard.Watcher) string {
	t.Helper()
	return evalString(t, w, `() => [location.href, history.length, sessionStorage.s, document.cookie].join(" ")`)
}

// busyLoop starts a loop that holds the page's main thread.
func busyLoop(t *testing.T, f *fixture) { f.runJS(t, `setTimeout(() => { for (;;) {} }, 0)`) }

// Captures of a tab whose script loops, or whose renderer hangs outside
// JavaScript, answer at their deadline with the cause and the call that
// ends it; Recover then brings the tab back (stopping the script, or
// crashing the renderer and reloading), keeping its history,
// sessionStorage and cookies, and the next capture answers. Recover acts
// on what the timeout found, or, called first, asks the page.
func TestCapturesRecover(t *testing.T) {
	t.Parallel()
	hang := func(t *testing.T, f *fixture) { f.hang(t) }
	tests := []struct {
		name     string
		fault    func(*testing.T, *fixture)
		capture  bool
		cause    chromedpguard.TimeoutCause
		advice   string
		action   chromedpguard.RecoveryAction
		reloaded bool
	}{
		{"busy script", busyLoop, true, chromedpguard.TimeoutBusyScript, "stop it with Watcher.Recover", chromedpguard.TerminatedScript, false},
		{"busy script, Recover first", busyLoop, false, chromedpguard.TimeoutBusyScript, "", chromedpguard.TerminatedScript, false},
		{"renderer hung", hang, true, chromedpguard.TimeoutHung, "Watcher.Recover dismisses a dialog, or crashes the renderer and reloads the tab", chromedpguard.CrashedAndReloaded, true},
		{"renderer hung, Recover first", hang, false, chromedpguard.TimeoutHung, "", chromedpguard.CrashedAndReloaded, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.capture {
				// Recover asks the page itself, then acts as after a
				// capture's timeout, with the same calls.
				faultrows.EngineRow(t)
			}
			t.Parallel()
			f := stalledTab(t, &chromedpguard.Options{EvalTimeout: 2 * time.Second})
			ctx := within(t, time.Minute)
			before := kept(t, f.w)
			assert.Contains(t, before, "/p2 3 kept c=1; p=1", "about:blank, /p1, /p2")
			tt.fault(t, f)
			if tt.capture {
				captures := map[string]func() error{
					"screenshot": func() error { _, err := f.w.Screenshot(ctx, false, 100); return err },
					"full page":  func() error { _, err := f.w.Screenshot(ctx, true, 100); return err },
					"PDF":        func() error { _, err := f.w.PDF(ctx, nil); return err },
				}
				for name, err := range faultrows.AllAtOnce(captures) {
					var te *chromedpguard.TimeoutError
					require.ErrorAs(t, err, &te, name)
					assert.Equal(t, tt.cause, te.Cause, name)
					assert.Contains(t, err.Error(), tt.advice, name)
				}
			}

			r, err := f.w.Recover(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.action, r.Action)
			var te *chromedpguard.TimeoutError
			require.ErrorAs(t, r.Problem, &te, "what was found")
			assert.Equal(t, tt.cause, te.Cause)
			assert.True(t, strings.HasSuffix(r.String(), ": "+string(tt.action)), r.String())

			png, err := f.w.Screenshot(ctx, false, 100)
			require.NoError(t, err, "the next capture answers")
			assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")))
			assert.Equal(t, before, kept(t, f.w), "history, sessionStorage and cookies kept")
			if tt.reloaded {
				assert.False(t, f.w.State().Crashed)
			}
		})
	}
}

// Recover dismisses a dialog, reloads a crashed tab, and leaves a tab that
// answers alone, saying so.
func TestRecoverRefusals(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	ctx := within(t, time.Minute)

	healthy := captureTab(t, sharedBrowser, srv, "/p2", nil)
	r, err := healthy.w.Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, chromedpguard.Recovery{Action: chromedpguard.RecoveredNothing}, r)
	assert.Equal(t, "tab answered: nothing", r.String())

	dialog := captureTab(t, sharedBrowser, srv, "/p2", nil)
	dialog.runJS(t, `setTimeout(() => alert("hi"), 0)`)
	dialog.waitBlocked(t, chromedpguard.ErrDialogOpen)
	r, err = dialog.w.Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, chromedpguard.DismissedDialog, r.Action)
	assert.ErrorIs(t, r.Problem, chromedpguard.ErrDialogOpen)
	_, err = dialog.w.Eval(ctx, `() => 1`)
	assert.NoError(t, err, "the next call answers")

	crashed := captureTab(t, sharedBrowser, srv, "/p2", nil)
	crashed.crash(t)
	crashed.waitBlocked(t, chromedpguard.ErrTabCrashed)
	r, err = crashed.w.Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, chromedpguard.Reloaded, r.Action)
	assert.ErrorIs(t, r.Problem, chromedpguard.ErrTabCrashed)
	assert.Contains(t, r.String(), "tab renderer crashed")
	assert.Equal(t, "/p2", evalString(t, crashed.w, `() => location.pathname`), "the next call answers")

	require.NoError(t, crashed.w.Close())
	_, err = crashed.w.Recover(ctx)
	assert.ErrorIs(t, err, chromedpguard.ErrWatcherClosed)
	_, err = healthy.w.Recover(nil) //lint:ignore SA1012 bad input under test
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
}
