package engine_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
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
// is. The print, a read of its stream and a screenshot each fail so.
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
		{"read", "IO.read", &enginetest.ProtocolError{Code: -32000, Message: "Read failed"},
			func(f *enginetest.Fake) { answer(f, "Page.printToPDF", map[string]any{"stream": "S"}) }, pdf},
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
