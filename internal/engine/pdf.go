package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// OpPDF names a PDF in a timeout and to the Trace.
const OpPDF = "PDF"

// PDF prints the tab as Page.printToPDF does with params (the backend's
// own parameters, or nil), and writes the document to w as it comes:
// Chrome hands it over as a stream, read Config.PDFChunk bytes a call
// (IO.read) and decoded into one buffer, so no message and no buffer of
// the engine's holds the whole document. It has the deadline of Do, named
// "PDF" in a timeout, and the time w takes counts against that deadline.
// It returns the bytes written.
//
// The print has the guard of Do: a renderer that dies under it answers
// [tabstate.ErrTabCrashed], whatever error Chrome answered first
// (crashedUnder). Once Chrome answers with the stream, the document is
// finished, and the stream is the browser's: it is read to its end as a
// browser-side call is (DoBrowserSide), whatever the renderer does then.
// Only the deadline, ctx, the Tab's Close, the tab's end and the browser's
// loss cut the reads short. A renderer crash does not.
//
// A PDF that fails after it wrote to w says so in its error, with the
// bytes written: they are the start of the document, never a whole one,
// for the caller to discard (truncate the file). An error of w's ends the
// PDF and is returned, wrapped so when w took bytes before it. The stream
// is closed (IO.close) in the background, whether the PDF is whole or not.
func (t *Tab) PDF(ctx context.Context, params any, w io.Writer) (int64, error) {
	switch {
	case ctx == nil:
		return 0, fmt.Errorf("%w: nil context", tabstate.ErrInvalidArgument)
	case w == nil:
		return 0, fmt.Errorf("%w: nil writer", tabstate.ErrInvalidArgument)
	}
	p, err := streamed(params)
	if err != nil {
		return 0, err
	}
	if !t.tracing(ctx) {
		return t.pdf(ctx, p, w)
	}
	ctx, rec := t.callStart(ctx, traceOp(OpPDF))
	n, err := t.pdf(ctx, p, w)
	t.callDone(ctx, rec, err)
	return n, err
}

// pdf is PDF: the print under the guard of Do, then the reads as a
// browser-side call, both within the time the PDF has (bound, the clock's
// rule).
func (t *Tab) pdf(ctx context.Context, params map[string]json.RawMessage, w io.Writer) (int64, error) {
	limit, due, _ := t.bound(ctx, time.Now())
	var stream string
	err := t.do(ctx, OpPDF, func(ctx context.Context) error {
		var err error
		stream, err = t.print(ctx, params)
		return err
	}, false)
	if err != nil {
		if stream != "" {
			t.closeStream(stream)
		}
		return 0, err
	}
	n, err := t.readPDF(ctx, limit, due, stream, w)
	if err != nil && n > 0 {
		err = fmt.Errorf("%w: %d bytes of the PDF written, an incomplete document: discard them", err, n)
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

// print prints the tab and returns the handle of the document's stream.
func (t *Tab) print(ctx context.Context, params map[string]json.RawMessage) (string, error) {
	var res printResult
	if err := t.s.Call(ctx, "Page.printToPDF", params, &res); err != nil {
		return "", t.crashedUnder(ctx, err)
	}
	if res.Stream == "" {
		return "", fmt.Errorf("print to PDF: the browser gave no stream")
	}
	return res.Stream, nil
}

// readPDF reads the printed document's stream to its end into w, as a
// browser-side call: a crash of the renderer does not cut it short, the
// deadline due, ctx, the Tab's Close, the tab's end and the browser's loss
// do. Its timeout names the PDF and the time the PDF had, limit. The
// stream is closed when it returns.
func (t *Tab) readPDF(ctx context.Context, limit time.Duration, due time.Time, stream string, w io.Writer) (n int64, err error) {
	defer t.closeStream(stream)
	ctx, cancel := context.WithDeadline(ctx, due)
	defer cancel()
	var werr error
	err = t.doBrowserSide(ctx, OpPDF, func(ctx context.Context) error {
		var err error
		n, werr, err = t.copyStream(ctx, stream, w)
		return err
	})
	if te := (*tabstate.TimeoutError)(nil); errors.As(err, &te) {
		err = &tabstate.TimeoutError{Op: OpPDF, Limit: limit, Doing: "the printed document was still being read"}
	}
	if err == nil {
		err = werr
	}
	return n, err
}

// copyStream copies the stream to w, a chunk a read. werr is w's error,
// which ends the copy; err is Chrome's or the call's.
func (t *Tab) copyStream(ctx context.Context, stream string, w io.Writer) (n int64, werr, err error) {
	read := ioReadParams{Handle: stream, Size: t.b.cfg.pdfChunk()}
	var buf []byte
	for {
		var r ioReadResult
		if err := t.s.Call(ctx, "IO.read", read, &r); err != nil {
			return n, nil, err
		}
		if buf, err = r.decode(buf); err != nil {
			return n, nil, fmt.Errorf("print to PDF: read the stream: %w", err)
		}
		m, werr := w.Write(buf)
		n += int64(m)
		if werr != nil {
			return n, werr, nil
		}
		if r.EOF {
			return n, nil, nil
		}
	}
}

// closeStream closes a stream of Chrome's (IO.close) in the background,
// within the eval timeout: the browser process answers it, whatever the
// page does. A stream Chrome fails to close costs only its buffer, so no
// answer waits for it.
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

// decode returns the bytes r carries in buf, which it reuses: Chrome
// sends a binary stream base64 encoded (a PDF's always is), a third
// larger than the bytes, and the decoding reads the text in place rather
// than copying it first.
func (r *ioReadResult) decode(buf []byte) ([]byte, error) {
	if !r.Base64Encoded {
		return append(buf[:0], r.Data...), nil
	}
	size := base64.StdEncoding.DecodedLen(len(r.Data))
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	m, err := io.ReadFull(base64.NewDecoder(base64.StdEncoding, strings.NewReader(r.Data)), buf[:size])
	if err == io.ErrUnexpectedEOF || err == io.EOF { // padding: fewer bytes than DecodedLen
		err = nil
	}
	return buf[:m], err
}
