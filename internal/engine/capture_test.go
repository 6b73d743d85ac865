package engine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// printing answers Page.printToPDF with a stream whose IO.reads give
// chunks, the last with eof.
func printing(f *enginetest.Fake, chunks ...string) {
	answer(f, "Page.printToPDF", map[string]any{"stream": "S"})
	n := 0
	f.Handle("IO.read", func(string, json.RawMessage) enginetest.Reply {
		c := chunks[n]
		n++
		return enginetest.Reply{Result: map[string]any{"base64Encoded": true, "data": base64.StdEncoding.EncodeToString([]byte(c)), "eof": n == len(chunks)}}
	})
}

// chunks records each write.
type chunks struct{ got []string }

func (c *chunks) Write(p []byte) (int, error) {
	c.got = append(c.got, string(p))
	return len(p), nil
}

// A PDF is asked for as a stream, with the caller's parameters; each read
// asks for Config.PDFChunk bytes and is written as it comes; the stream is
// closed once whole.
func TestPDFStreamed(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{PDFChunk: 1234})
			printing(fx.f, "%PDF-1.4 ", "middle ", "%%EOF")
			var w chunks
			n, err := fx.tab.PDF(deadline(t), map[string]any{"landscape": true, "transferMode": "ReturnAsBase64"}, &w)
			require.NoError(t, err)
			assert.Equal(t, []string{"%PDF-1.4 ", "middle ", "%%EOF"}, w.got)
			assert.Equal(t, int64(len("%PDF-1.4 middle %%EOF")), n)
			for _, c := range fx.f.Calls() {
				switch c.Method {
				case "Page.printToPDF":
					assert.JSONEq(t, `{"landscape":true,"transferMode":"ReturnAsStream"}`, string(c.Params))
				case "IO.read":
					assert.JSONEq(t, `{"handle":"S","size":1234}`, string(c.Params))
				}
			}
			require.Eventually(t, func() bool { return fx.f.Count("IO.close") == 1 }, 5*time.Second, time.Millisecond)
		})
	}
}

// A writer's error ends the PDF as it is, and the stream is closed; bad
// input is refused before anything is sent.
func TestPDFWriterFails(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	printing(fx.f, "%PDF-1.4 ", "%%EOF")
	full := errors.New("disk full")
	_, err := fx.tab.PDF(deadline(t), nil, failing{full})
	assert.ErrorIs(t, err, full)
	assert.Equal(t, 1, fx.f.Count("IO.read"))
	require.Eventually(t, func() bool { return fx.f.Count("IO.close") == 1 }, 5*time.Second, time.Millisecond)

	_, err = fx.tab.PDF(deadline(t), nil, nil)
	assert.ErrorIs(t, err, tabstate.ErrInvalidArgument)
	_, err = fx.tab.PDF(deadline(t), []int{1}, &bytes.Buffer{})
	assert.ErrorIs(t, err, tabstate.ErrInvalidArgument)
	assert.Equal(t, 1, fx.f.Count("Page.printToPDF"))
}

type failing struct{ err error }

func (f failing) Write([]byte) (int, error) { return 0, f.err }

// A full page over the bound is refused from its layout metrics, and the
// driver's capture is not called; no bound reads no metrics.
func TestFullPageBound(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{MaxCapturePixels: 1_000_000})
	answer(fx.f, "Page.getLayoutMetrics", map[string]any{
		"contentSize": map[string]any{"width": 800, "height": 5000}, "cssContentSize": map[string]any{"width": 800, "height": 5000}})
	called := 0
	capture := func(ctx context.Context) error { called++; return nil }
	err := fx.tab.Screenshot(deadline(t), true, "Options.MaxCapturePixels", capture)
	require.ErrorIs(t, err, tabstate.ErrCaptureTooLarge)
	assert.Equal(t, "capture too large: full-page screenshot of 800×5000 device pixels is 4.0 megapixels, over the bound of 1.0 megapixels: "+
		"capture the viewport, or raise Options.MaxCapturePixels", err.Error())
	assert.Zero(t, called)
	require.NoError(t, fx.tab.Screenshot(deadline(t), false, "", capture))
	assert.Equal(t, 1, called, "the viewport is not measured")
	assert.Equal(t, 1, fx.f.Count("Page.getLayoutMetrics"))

	unbounded := setup(t, enginetest.EventsFirst, engine.Config{MaxCapturePixels: -1})
	require.NoError(t, unbounded.tab.Screenshot(deadline(t), true, "", capture))
	assert.Zero(t, unbounded.f.Count("Page.getLayoutMetrics"))
}

// A renderer that dies under a capture answers it with the crash, status
// included, though Chrome's error reply comes before the crash events:
// within the event grace, or later, when the dead renderer answers no
// interrupt (Performance.getMetrics) meanwhile. The same error with no
// crash, from a renderer that answers the interrupt, is Chrome's, as it
// is. The print and a screenshot each fail so; a printed document is read
// whatever the renderer does (TestPDFReadAfterCrash).
func TestCaptureCrashWinsOverReply(t *testing.T) {
	pdf := func(fx *fixture) error {
		_, err := fx.tab.PDF(deadline(t), nil, &bytes.Buffer{})
		return err
	}
	tests := []struct {
		name    string
		method  string // the command that fails
		fails   error  // Chrome's reply to it
		prepare func(f *enginetest.Fake)
		capture func(fx *fixture) error
	}{
		{"print", "Page.printToPDF", &enginetest.ProtocolError{Code: -32000, Message: "Printing failed"}, func(*enginetest.Fake) {}, pdf},
		{"screenshot", "Page.captureScreenshot", &enginetest.ProtocolError{Code: -32000, Message: "Unable to capture screenshot"},
			func(*enginetest.Fake) {}, func(fx *fixture) error {
				return fx.tab.Screenshot(deadline(t), false, "", func(ctx context.Context) error {
					return fx.f.Session(sess).Call(ctx, "Page.captureScreenshot", nil, nil)
				})
			}},
	}
	dead := func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Hang: true} }
	for _, tt := range tests {
		for _, order := range orders {
			for _, late := range []bool{false, true} {
				name, cfg := tt.name+"/"+order.String(), engine.Config{EvalTimeout: 5 * time.Second, EventGrace: lateGrace}
				if late {
					// The crash comes after the grace: the interrupt, which
					// the dead renderer never answers, waits for it.
					name, cfg.EventGrace = name+"/after the grace", time.Millisecond
				}
				t.Run(name, func(t *testing.T) {
					fx := setup(t, order, cfg)
					tt.prepare(fx.f)
					fx.f.Handle("Performance.getMetrics", dead)
					fx.f.Handle(tt.method, func(string, json.RawMessage) enginetest.Reply {
						return enginetest.Reply{Err: tt.fails, After: crash("crashed")}
					})
					err := tt.capture(fx)
					var be *tabstate.BlockedError
					require.ErrorAs(t, err, &be, "the crash, not %v", tt.fails)
					assert.Equal(t, tabstate.ErrTabCrashed, be.Reason)
					assert.Equal(t, "crashed", be.Detail, "the crash reads with its status wherever it surfaces")
					assert.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrTabCrashed, "the next call is refused")
				})
			}
		}
		t.Run(tt.name+"/no crash", func(t *testing.T) {
			fx := setup(t, enginetest.ReplyFirst, engine.Config{})
			tt.prepare(fx.f)
			fx.f.Handle(tt.method, func(string, json.RawMessage) enginetest.Reply { return enginetest.Reply{Err: tt.fails} })
			err := tt.capture(fx)
			assert.ErrorIs(t, err, tt.fails, "Chrome's error, as it is")
			assert.Equal(t, 1, fx.f.Count("Performance.getMetrics"), "the renderer answered an interrupt")
			assert.NoError(t, fx.tab.Do(deadline(t), "", ok), "the tab answers")
		})
	}
}

// writerFunc is a func as an io.Writer.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// reading answers IO.read with doc, a chunk a read; on, when set, shapes
// the reply to read i (0 first).
func reading(f *enginetest.Fake, doc []string, on func(i int, r *enginetest.Reply)) {
	answer(f, "Page.printToPDF", map[string]any{"stream": "S"})
	i := 0
	f.Handle("IO.read", func(string, json.RawMessage) enginetest.Reply {
		r := enginetest.Reply{Result: map[string]any{
			"base64Encoded": true, "data": base64.StdEncoding.EncodeToString([]byte(doc[i])), "eof": i == len(doc)-1}}
		if on != nil {
			on(i, &r)
		}
		i++
		return r
	})
}

// Once Chrome answers the print with its stream, the document is
// finished and the stream is the browser's: a crash of the renderer while
// it is read, told before the first read's reply, after it, or while the
// writer takes the first chunk, cuts no read short, and the PDF is whole.
// The next call is refused with the crash.
func TestPDFReadAfterCrash(t *testing.T) {
	doc := []string{"%PDF-1.4 ", "one ", "two ", "%%EOF"}
	tests := []struct {
		name          string
		before, after bool // the crash comes with the first read's reply
		writer        bool // the writer crashes the tab
	}{
		{name: "told before the first reply", before: true},
		{name: "told after the first reply", after: true},
		{name: "while the first chunk is written", writer: true},
	}
	for _, tt := range tests {
		for _, order := range orders {
			t.Run(tt.name+"/"+order.String(), func(t *testing.T) {
				fx := setup(t, order, engine.Config{})
				reading(fx.f, doc, func(i int, r *enginetest.Reply) {
					switch {
					case i == 0 && tt.before:
						r.Events = crash("crashed")
					case i == 0 && tt.after:
						r.After = crash("crashed")
					case i == 1:
						// The crash came before the second read: the Tab knows it.
						require.Eventually(t, func() bool { return fx.tab.State().Crashed }, 5*time.Second, time.Millisecond)
					}
				})
				var out chunks
				w := writerFunc(func(p []byte) (int, error) {
					if tt.writer && len(out.got) == 0 {
						fx.f.Push(crash("crashed")...)
					}
					return out.Write(p)
				})
				n, err := fx.tab.PDF(deadline(t), nil, w)
				require.NoError(t, err, "the document was finished")
				assert.Equal(t, doc, out.got, "whole")
				assert.Equal(t, int64(len(strings.Join(doc, ""))), n)
				assert.Equal(t, len(doc), fx.f.Count("IO.read"))
				assert.ErrorIs(t, fx.tab.Do(deadline(t), "", ok), tabstate.ErrTabCrashed, "the next call is refused")
				require.Eventually(t, func() bool { return fx.f.Count("IO.close") == 1 }, 5*time.Second, time.Millisecond)
			})
		}
	}
}

// The reads of a printed document stay bounded, a crash or not: by the
// PDF's deadline, which names the PDF and the time it had, and by the
// Tab's Close. Each error says how many bytes were written.
func TestPDFReadBounded(t *testing.T) {
	doc := []string{"%PDF-1.4 ", "one ", "%%EOF"}
	t.Run("deadline after a crash", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
		reading(fx.f, doc, func(i int, r *enginetest.Reply) {
			if i == 0 {
				r.Events = crash("crashed")
			}
			r.Hang = i == 1
		})
		var out chunks
		n, err := fx.tab.PDF(deadline(t), nil, &out)
		var te *tabstate.TimeoutError
		require.ErrorAs(t, err, &te, "the deadline, not the crash")
		assert.Equal(t, engine.OpPDF, te.Op)
		assert.Equal(t, 300*time.Millisecond, te.Limit)
		assert.NotErrorIs(t, err, tabstate.ErrTabCrashed)
		assert.Equal(t, int64(len(doc[0])), n)
		assert.Equal(t, "PDF timed out after 300ms (the printed document was still being read): "+
			"9 bytes of the PDF written, an incomplete document: discard them", err.Error())
	})
	t.Run("a later deadline of the caller's", func(t *testing.T) {
		// The reads take longer than the eval timeout: the caller's
		// deadline governs them, as it does the print.
		const timeout = 100 * time.Millisecond
		fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: timeout})
		reading(fx.f, doc, func(i int, r *enginetest.Reply) { r.Delay = timeout })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out chunks
		n, err := fx.tab.PDF(ctx, nil, &out)
		require.NoError(t, err)
		assert.Equal(t, int64(len(strings.Join(doc, ""))), n)
	})
	t.Run("Close", func(t *testing.T) {
		fx := setup(t, enginetest.EventsFirst, engine.Config{})
		reading(fx.f, doc, func(i int, r *enginetest.Reply) {
			if i == 1 {
				go fx.tab.Close()
				r.Hang = true
			}
		})
		n, err := fx.tab.PDF(deadline(t), nil, &chunks{})
		require.ErrorIs(t, err, tabstate.ErrWatcherClosed)
		assert.Equal(t, int64(len(doc[0])), n)
		assert.Contains(t, err.Error(), ": 9 bytes of the PDF written, an incomplete document: discard them")
	})
}
