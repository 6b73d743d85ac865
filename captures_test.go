package tabguard_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// captureTab opens path of srv in a tab of b, loaded and in front, and
// watches it with opts.
func captureTab(t *testing.T, b *testbrowser.Browser, srv *httptest.Server, path string, opts *tabguard.Options) (*rod.Page, *tabguard.Watcher) {
	t.Helper()
	page := testbrowser.NewPage(t, b)
	require.NoError(t, navigate(t, page, srv.URL+path))
	require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
	_ = proto.PageBringToFront{}.Call(page.Context(testbrowser.Context(t, 5*time.Second)))
	return page, watch(t, page, opts)
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

// A PDF comes as a stream, a chunk a read: no write holds more than
// Options.PDFChunk, however long the document; a writer's error ends it,
// and the tab answers next. A PDF needs no paint, so the tab may be
// hidden: it lives in the shared browser.
func TestPDFStreamed(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	const chunk = 16 << 10
	_, w := captureTab(t, testbrowser.Shared(t), srv, "/doc?pages=40", &tabguard.Options{PDFChunk: chunk, EvalTimeout: time.Minute})
	ctx := testbrowser.Context(t, 2*time.Minute)

	var out writes
	n, err := w.PDFTo(ctx, &out, &proto.PagePrintToPDF{PrintBackground: true})
	require.NoError(t, err)
	assert.Equal(t, int64(out.Len()), n)
	assert.True(t, bytes.HasPrefix(out.Bytes(), []byte("%PDF-")), "a PDF")
	assert.Contains(t, string(bytes.TrimSpace(out.Bytes()[max(out.Len()-32, 0):])), "%%EOF", "whole")
	assert.LessOrEqual(t, out.largest, chunk, "no write over the chunk")
	assert.GreaterOrEqual(t, out.n, out.Len()/chunk, "a write a chunk")

	pdf, err := w.PDF(ctx, nil)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))

	_, err = w.PDFTo(ctx, fullWriter{}, nil)
	assert.ErrorIs(t, err, errFull, "the writer's error, as it is")
	_, err = w.PDFTo(ctx, nil, nil)
	assert.ErrorIs(t, err, tabguard.ErrInvalidArgument)

	v, err := w.Eval(ctx, `() => document.title`)
	require.NoError(t, err, "the tab answers after a PDF cut short")
	assert.Equal(t, "doc", v.Value.Str())
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

// crashAfter crashes page's renderer (Page.crash) d from now, and returns
// a channel closed once the call has returned. Chrome never answers
// Page.crash, so it has 300 ms of its own.
func crashAfter(page *rod.Page, d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_ = proto.PageCrash{}.Call(page.Context(ctx))
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
		page, w := captureTab(t, b, srv, "/doc?pages=1000", &tabguard.Options{EvalTimeout: time.Minute})
		ctx := testbrowser.Context(t, time.Minute)
		crashed := crashAfter(page, 100*time.Millisecond)
		n, err := w.PDFTo(ctx, io.Discard, nil)
		<-crashed
		var be *tabguard.BlockedError
		require.ErrorAs(t, err, &be, "try %d: a crash 100 ms in, not the PDF whole (%d bytes)", i, n)
		assert.Equal(t, tabguard.ErrTabCrashed, be.Reason, "try %d: %v", i, err)
		assert.Equal(t, "crashed", be.Detail, "try %d: the crash's status", i)
		_, err = w.Eval(ctx, `() => 1`)
		assert.ErrorIs(t, err, tabguard.ErrTabCrashed, "try %d: the next call", i)
	}

	_, w := captureTab(t, b, srv, "/doc?pages=3", nil)
	ctx := testbrowser.Context(t, time.Minute)
	_, err := w.PDF(ctx, &proto.PagePrintToPDF{PageRanges: "50-60"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Page range exceeds page count", "Chrome's error")
	assert.NotErrorIs(t, err, tabguard.ErrTabCrashed)
	_, err = w.Eval(ctx, `() => 1`)
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
	page, w := captureTab(t, dedicated(t), srv, "/doc?pages=100", &tabguard.Options{PDFChunk: chunk, EvalTimeout: time.Minute})
	ctx := testbrowser.Context(t, 2*time.Minute)
	want, err := w.PDF(ctx, nil)
	require.NoError(t, err)
	require.Greater(t, len(want), 4*chunk, "a document of many reads")

	out := &faultrows.CrashingWriter{Crash: func() {
		crash(t, page)
		eventually(t, "the watcher to know of the crash", blockedBy(t, w, tabguard.ErrTabCrashed))
	}}
	n, err := w.PDFTo(ctx, out, nil)
	require.NoError(t, err, "the document was printed before the crash")
	faultrows.CheckWholePDF(t, want, out.Bytes(), n)
	assert.Greater(t, out.Writes, 4, "read after the crash")
	_, err = w.Eval(ctx, `() => 1`)
	assert.ErrorIs(t, err, tabguard.ErrTabCrashed, "the next call")
}

// TestPDFUnderALaterDeadline: a PDF whose caller gives it a deadline later
// than the eval timeout has that deadline for its reads too: a writer that
// takes longer than the eval timeout gets the whole document.
func TestPDFUnderALaterDeadline(t *testing.T) {
	t.Parallel()
	srv := faultrows.CapturesServer(t)
	const chunk, timeout = 16 << 10, time.Second
	_, w := captureTab(t, dedicated(t), srv, "/doc?pages=100", &tabguard.Options{PDFChunk: chunk, EvalTimeout: timeout})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want, err := w.PDF(ctx, nil)
	require.NoError(t, err)
	require.Greater(t, len(want), 4*chunk, "a document of many reads")

	// Each write waits half the eval timeout: the reads outlast it.
	out := &slowWriter{pause: timeout / 2}
	n, err := w.PDFTo(ctx, out, nil)
	require.NoError(t, err, "the caller's deadline governs the reads")
	faultrows.CheckWholePDF(t, want, out.Bytes(), n)
	assert.Greater(t, out.writes, 4, "the writes outlast the eval timeout")
}

// slowWriter is a buffer whose every write waits pause first.
type slowWriter struct {
	bytes.Buffer
	pause  time.Duration
	writes int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.pause)
	w.writes++
	return w.Buffer.Write(p)
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
	ctx := testbrowser.Context(t, time.Minute)

	_, w := captureTab(t, b, srv, "/tall?px=3000", &tabguard.Options{MaxCapturePixels: 1_000_000})
	_, err := w.Screenshot(ctx, true, nil)
	require.ErrorIs(t, err, tabguard.ErrCaptureTooLarge)
	assert.Regexp(t, `^capture too large: full-page screenshot of \d+×3000 device pixels is \d+\.\d megapixels, over the bound of 1\.0 megapixels: `+
		`capture the viewport, or raise Options\.MaxCapturePixels$`, err.Error())
	png, err := w.Screenshot(ctx, false, nil)
	require.NoError(t, err, "the viewport is not bounded")
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")))

	_, tall := captureTab(t, b, srv, "/tall?px=30000", &tabguard.Options{EvalTimeout: time.Minute})
	png, err = tall.Screenshot(ctx, true, nil)
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
	page, w := captureTab(t, b, srv, "/doc?pages=3", &tabguard.Options{EvalTimeout: time.Minute})
	ctx := testbrowser.Context(t, time.Minute)
	front := testbrowser.NewPage(t, b)
	require.NoError(t, navigate(t, front, srv.URL+"/p1"))
	require.NoError(t, proto.PageBringToFront{}.Call(front.Context(ctx)), "a tab comes to front and hides this one")
	eventually(t, "the tab to be hidden", func() bool {
		res, err := proto.RuntimeEvaluate{Expression: "document.visibilityState"}.Call(page.Context(testbrowser.Context(t, 2*time.Second)))
		return err == nil && res.Result.Value.Str() == "hidden"
	})
	captures := func(state string) {
		png, err := w.Screenshot(ctx, false, nil)
		require.NoError(t, err, state)
		assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), state)
		png, err = w.Screenshot(ctx, true, nil)
		require.NoError(t, err, state)
		assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), state)
		pdf, err := w.PDF(ctx, nil)
		require.NoError(t, err, state)
		assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), state)
	}
	pdf, err := w.PDF(ctx, nil)
	require.NoError(t, err, "hidden")
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "hidden")
	shotCtx, cancelShot := context.WithTimeout(ctx, 2*time.Second)
	_, err = w.Screenshot(shotCtx, false, nil)
	cancelShot()
	if err != nil {
		var te *tabguard.TimeoutError
		require.ErrorAs(t, err, &te, "a hidden tab's screenshot answers, or times out saying why")
		assert.Equal(t, tabguard.TimeoutHidden, te.Cause)
		assert.Contains(t, err.Error(), "Page.bringToFront (proto.PageBringToFront) shows it")
	}
	// Frozen in front, as a program freezes a tab it shows.
	require.NoError(t, proto.PageBringToFront{}.Call(page.Context(ctx)))
	require.NoError(t, proto.PageSetWebLifecycleState{State: proto.PageSetWebLifecycleStateStateFrozen}.Call(page.Context(ctx)))
	captures("frozen")
}

// stalledTab is a tab of a browser of its own that went to /p1 (which
// sets cookies), then /p2, with sessionStorage set, so a recovery can show
// what it kept.
func stalledTab(t *testing.T, opts *tabguard.Options) (*rod.Page, *tabguard.Watcher) {
	t.Helper()
	srv := faultrows.CapturesServer(t)
	page, w := captureTab(t, dedicated(t), srv, "/p1", opts)
	ctx := testbrowser.Context(t, time.Minute)
	require.NoError(t, w.Navigate(ctx, srv.URL+"/p2"))
	_, err := w.Eval(ctx, `() => { sessionStorage.s = "kept" }`)
	require.NoError(t, err)
	return page, w
}

// kept is what a tab holds that a recovery may lose.
func kept(t *testing.T, w *tabguard.Watcher) string {
	t.Helper()
	v, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => [location.href, history.length, sessionStorage.s, document.cookie].join(" ")`)
	require.NoError(t, err)
	return v.Value.Str()
}

// hang hangs the tab's renderer outside JavaScript (chrome://hang).
func hang(t *testing.T, page *rod.Page) {
	t.Helper()
	_ = navigate(t, page, "chrome://hang")
	eventually(t, "the renderer to hang", func() bool {
		info, err := proto.TargetGetTargetInfo{TargetID: page.TargetID}.Call(page.Browser().Context(testbrowser.Context(t, 2*time.Second)))
		return err == nil && info.TargetInfo.URL == "chrome://hang/"
	})
	// The target shows the URL before the renderer stops: wait until an
	// evaluate gets no answer.
	eventually(t, "the renderer to stop answering", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := proto.RuntimeEvaluate{Expression: "1"}.Call(page.Context(ctx))
		return errors.Is(err, context.DeadlineExceeded)
	})
}

// busyLoop starts a loop that holds the page's main thread.
func busyLoop(t *testing.T, page *rod.Page) {
	t.Helper()
	_, err := proto.RuntimeEvaluate{Expression: `setTimeout(() => { for (;;) {} }, 0)`}.Call(page.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
}

// Captures of a tab whose script loops, or whose renderer hangs outside
// JavaScript, answer at their deadline with the cause and the call that
// ends it; Recover then brings the tab back (stopping the script, or
// crashing the renderer and reloading), keeping its history,
// sessionStorage and cookies, and the next capture answers. Recover acts
// on what the timeout found, or, called first, asks the page.
func TestCapturesRecover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fault    func(*testing.T, *rod.Page)
		capture  bool
		cause    tabguard.TimeoutCause
		advice   string
		action   tabguard.RecoveryAction
		reloaded bool
	}{
		{"busy script", busyLoop, true, tabguard.TimeoutBusyScript, "stop it with Watcher.Recover", tabguard.TerminatedScript, false},
		{"busy script, Recover first", busyLoop, false, tabguard.TimeoutBusyScript, "", tabguard.TerminatedScript, false},
		{"renderer hung", hang, true, tabguard.TimeoutHung, "Watcher.Recover dismisses a dialog, or crashes the renderer and reloads the tab", tabguard.CrashedAndReloaded, true},
		{"renderer hung, Recover first", hang, false, tabguard.TimeoutHung, "", tabguard.CrashedAndReloaded, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			page, w := stalledTab(t, &tabguard.Options{EvalTimeout: 2 * time.Second})
			ctx := testbrowser.Context(t, time.Minute)
			before := kept(t, w)
			assert.Contains(t, before, "/p2 3 kept c=1; p=1", "about:blank, /p1, /p2")
			tt.fault(t, page)
			if tt.capture {
				captures := map[string]func() error{
					"screenshot": func() error { _, err := w.Screenshot(ctx, false, nil); return err },
					"full page":  func() error { _, err := w.Screenshot(ctx, true, nil); return err },
					"PDF":        func() error { _, err := w.PDF(ctx, nil); return err },
				}
				for name, err := range faultrows.AllAtOnce(captures) {
					var te *tabguard.TimeoutError
					require.ErrorAs(t, err, &te, name)
					assert.Equal(t, tt.cause, te.Cause, name)
					assert.Contains(t, err.Error(), tt.advice, name)
				}
			}

			r, err := w.Recover(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.action, r.Action)
			var te *tabguard.TimeoutError
			require.ErrorAs(t, r.Problem, &te, "what was found")
			assert.Equal(t, tt.cause, te.Cause)
			assert.True(t, strings.HasSuffix(r.String(), ": "+string(tt.action)), r.String())

			png, err := w.Screenshot(ctx, false, nil)
			require.NoError(t, err, "the next capture answers")
			assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")))
			assert.Equal(t, before, kept(t, w), "history, sessionStorage and cookies kept")
			if tt.reloaded {
				assert.False(t, w.State().Crashed)
			}
		})
	}
}

// Recover dismisses a dialog, reloads a crashed tab, and leaves a tab that
// answers alone, saying so.
func TestRecoverRefusals(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	ctx := testbrowser.Context(t, time.Minute)

	healthy := watch(t, loadedPage(t, srv), nil)
	r, err := healthy.Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, tabguard.Recovery{Action: tabguard.RecoveredNothing}, r)
	assert.Equal(t, "tab answered: nothing", r.String())

	page := loadedPage(t, srv)
	dialog := watch(t, page, nil)
	_, err = proto.RuntimeEvaluate{Expression: `setTimeout(() => alert("hi"), 0)`}.Call(page.Context(ctx))
	require.NoError(t, err)
	eventually(t, "the dialog", blockedBy(t, dialog, tabguard.ErrDialogOpen))
	r, err = dialog.Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, tabguard.DismissedDialog, r.Action)
	assert.ErrorIs(t, r.Problem, tabguard.ErrDialogOpen)
	_, err = dialog.Eval(ctx, `() => 1`)
	assert.NoError(t, err, "the next call answers")

	page = loadedPage(t, srv)
	crashed := watch(t, page, nil)
	crash(t, page)
	eventually(t, "the crash", blockedBy(t, crashed, tabguard.ErrTabCrashed))
	r, err = crashed.Recover(ctx)
	require.NoError(t, err)
	assert.Equal(t, tabguard.Reloaded, r.Action)
	assert.ErrorIs(t, r.Problem, tabguard.ErrTabCrashed)
	assert.Contains(t, r.String(), "tab renderer crashed")
	_, err = crashed.Eval(ctx, `() => 1`)
	require.NoError(t, err, "the next call answers")
	_, err = crashed.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	v, err := crashed.Eval(ctx, `() => document.title`)
	require.NoError(t, err)
	assert.Equal(t, "ok", v.Value.Str(), "the page it had, reloaded")

	require.NoError(t, crashed.Close())
	_, err = crashed.Recover(ctx)
	assert.ErrorIs(t, err, tabguard.ErrWatcherClosed)
	_, err = healthy.Recover(nil) //lint:ignore SA1012 a nil context is the bad input under test
	assert.ErrorIs(t, err, tabguard.ErrInvalidArgument)
}
