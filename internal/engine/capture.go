package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tabguard/tabguard/tabstate"
)

// OpPDF names a PDF in a timeout and to the Trace.
const OpPDF = "PDF"

// Screenshot runs fn, the driver's own screenshot of the tab, under the
// guard of DoAction, named "screenshot" in a timeout, which says what the
// tab was doing: hidden (a background tab paints only now and then),
// busy in a script, or hung. A full page is measured first
// (Page.getLayoutMetrics): one over Config.MaxCapturePixels gives
// [tabstate.ErrCaptureTooLarge], naming its size and the bound, and fn is
// not called. option names that setting in the error, as the backend
// spells it. A renderer that dies under the capture answers
// [tabstate.ErrTabCrashed], whatever error Chrome answered first
// (crashedUnder).
func (t *Tab) Screenshot(ctx context.Context, fullPage bool, option string, fn func(ctx context.Context) error) error {
	return t.DoAction(ctx, OpScreenshot, func(ctx context.Context) error {
		if fullPage {
			if err := t.fits(ctx, option); err != nil {
				return t.crashedUnder(ctx, err)
			}
		}
		return t.crashedUnder(ctx, fn(ctx))
	})
}

// crashedUnder returns err, a capture's error, unless it is Chrome's
// error reply and the renderer died under the capture. Measured on
// Chromium 156: a renderer that dies under Page.printToPDF makes Chrome
// answer "Printing failed" (-32000), and its crash events follow the
// reply, by up to 16 ms beside two busy loops and by more than 100 ms
// beside four. So the crash is awaited for eventGrace, and then, if it
// has not come, until the renderer answers an interrupt (diedUnder). The
// crash cuts the call short (ctx ends with it), and the crash, with its
// status, is the answer, as it is for a capture it cut short before
// Chrome replied (Page.captureScreenshot gets no reply from a dead
// renderer; IO.read goes on reading a printed document to its end, the
// stream being the browser's). Any other error passes through at once.
func (t *Tab) crashedUnder(ctx context.Context, err error) error {
	if err == nil || t.b.d.Classify(err).Kind != Protocol {
		return err
	}
	crashed := func() bool { return t.tab.State().Crashed }
	if !t.await(ctx, t.b.cfg.grace(), crashed) && !t.diedUnder(ctx) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err() // cut short by the crash: its refusal is the answer (settle)
	}
	return t.blocked(tabstate.ErrTabCrashed)
}

// diedUnder reports whether the tab's renderer is dead, as its crash
// events show, when they come before the renderer answers an interrupt
// (Performance.getMetrics). A live renderer answers one in milliseconds,
// even while a script holds its main thread; a dead one never answers,
// and its crash cuts the interrupt short. The wait ends with ctx or after
// the engine's patience (Browser.due), whichever is first.
func (t *Tab) diedUnder(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, t.b.patience())
	defer cancel()
	_ = t.probe(ctx, func(ctx context.Context) error { return t.s.Call(ctx, "Performance.getMetrics", nil, nil) })
	return t.State().Crashed
}

// fits reads the page's size and refuses a full-page capture over the
// bound.
func (t *Tab) fits(ctx context.Context, option string) error {
	bound := t.b.cfg.maxCapturePixels()
	if bound == 0 {
		return nil
	}
	var m layoutMetrics
	if err := t.s.Call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
		return err
	}
	// contentSize is in device pixels on a scaled screen, cssContentSize
	// in CSS pixels: the larger of the two is what the bitmap needs.
	w := int64(max(m.ContentSize.Width, m.CSSContentSize.Width) + 0.5)
	h := int64(max(m.ContentSize.Height, m.CSSContentSize.Height) + 0.5)
	if w*h > bound {
		return tabstate.CaptureTooLarge(w, h, bound, option)
	}
	return nil
}

// PDF prints the tab as Page.printToPDF does with params (the backend's
// own parameters, or nil), and writes the document to w as it comes:
// Chrome hands it over as a stream, read Config.PDFChunk bytes a call
// (IO.read), so no message and no buffer of the engine's holds the whole
// document. It has the guard and the deadline of Do, named "PDF" in a
// timeout, and the time w takes counts against that deadline. It returns
// the bytes written. An error of w's ends the PDF and is returned as it
// is; the stream is then closed (IO.close) in the background, as it is
// when the call fails or runs out of time. A renderer that dies under the
// print answers [tabstate.ErrTabCrashed], whatever error Chrome answered
// first (crashedUnder).
func (t *Tab) PDF(ctx context.Context, params any, w io.Writer) (int64, error) {
	if w == nil {
		return 0, fmt.Errorf("%w: nil writer", tabstate.ErrInvalidArgument)
	}
	p, err := streamed(params)
	if err != nil {
		return 0, err
	}
	var n int64
	var werr error
	err = t.Do(ctx, OpPDF, func(ctx context.Context) error {
		var err error
		n, werr, err = t.printPDF(ctx, p, w)
		return err
	})
	if err == nil {
		err = werr
	}
	return n, err
}

// streamed is params as a JSON object that asks for the PDF as a stream.
func streamed(params any) (map[string]json.RawMessage, error) {
	p := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%w: PDF parameters: %v", tabstate.ErrInvalidArgument, err)
		}
		if string(b) != "null" {
			if err := json.Unmarshal(b, &p); err != nil {
				return nil, fmt.Errorf("%w: PDF parameters are no JSON object: %v", tabstate.ErrInvalidArgument, err)
			}
		}
	}
	p["transferMode"] = json.RawMessage(`"ReturnAsStream"`)
	return p, nil
}

// printPDF prints the tab and copies the stream to w. werr is w's error,
// which ends the copy; err is Chrome's or the call's.
func (t *Tab) printPDF(ctx context.Context, params map[string]json.RawMessage, w io.Writer) (n int64, werr, err error) {
	var res printResult
	if err := t.s.Call(ctx, "Page.printToPDF", params, &res); err != nil {
		return 0, nil, t.crashedUnder(ctx, err)
	}
	if res.Stream == "" {
		return 0, nil, fmt.Errorf("print to PDF: the browser gave no stream")
	}
	read := ioReadParams{Handle: res.Stream, Size: t.b.cfg.pdfChunk()}
	for {
		var r ioReadResult
		if err := t.s.Call(ctx, "IO.read", read, &r); err != nil {
			t.closeStream(res.Stream)
			return n, nil, t.crashedUnder(ctx, err)
		}
		var chunk []byte
		if r.Base64Encoded { // a PDF's always is
			if chunk, err = base64.StdEncoding.DecodeString(r.Data); err != nil {
				t.closeStream(res.Stream)
				return n, nil, fmt.Errorf("print to PDF: read the stream: %w", err)
			}
		} else {
			chunk = []byte(r.Data)
		}
		m, werr := w.Write(chunk)
		n += int64(m)
		if werr != nil {
			t.closeStream(res.Stream)
			return n, werr, nil
		}
		if r.EOF {
			break
		}
	}
	// The document is whole: a stream Chrome fails to close costs only
	// its buffer, so the answer does not wait for it.
	t.closeStream(res.Stream)
	return n, nil, nil
}

// closeStream closes a stream of Chrome's (IO.close) in the background,
// within the eval timeout: the browser process answers it, whatever the
// page does.
func (t *Tab) closeStream(handle string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(t.life, t.timeout)
		defer cancel()
		if err := t.s.Call(ctx, "IO.close", ioCloseParams{Handle: handle}, nil); err != nil && t.life.Err() == nil {
			t.logf("tabguard: closing a PDF stream failed", err)
		}
	}()
}

type layoutMetrics struct {
	ContentSize    size `json:"contentSize"`
	CSSContentSize size `json:"cssContentSize"`
}

type size struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

type printResult struct {
	Stream string `json:"stream"`
}

type ioReadParams struct {
	Handle string `json:"handle"`
	Size   int    `json:"size"`
}

type ioReadResult struct {
	Base64Encoded bool   `json:"base64Encoded"`
	Data          string `json:"data"`
	EOF           bool   `json:"eof"`
}

type ioCloseParams struct {
	Handle string `json:"handle"`
}
