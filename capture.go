package tabguard

import (
	"bytes"
	"context"
	"io"

	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/tabstate"
)

// ErrCaptureTooLarge reports a full-page screenshot of a page larger than
// Options.MaxCapturePixels; the error names the page's size and the bound.
var ErrCaptureTooLarge = tabstate.ErrCaptureTooLarge

// DefaultMaxCapturePixels bounds a full-page screenshot when
// Options.MaxCapturePixels is zero: 2^26 pixels (8192 × 8192), a 256 MiB
// bitmap in the renderer.
const DefaultMaxCapturePixels = tabstate.DefaultMaxCapturePixels

// DefaultPDFChunk is how many bytes of a PDF each read asks the browser
// for when Options.PDFChunk is zero: 64 KiB.
const DefaultPDFChunk = tabstate.DefaultPDFChunk

// maxCapturePixels names the bound of a full-page screenshot in errors.
const maxCapturePixels = "Options.MaxCapturePixels"

// Screenshot captures the tab, as rod's page.Screenshot does (fullPage
// takes the whole page, req nil means PNG), with the guard of
// [Watcher.Do]: refused on a tab that cannot answer, cut short when the
// renderer dies, and a timeout that names the screenshot and what the tab
// was doing: hidden (a background tab's screenshot waits for Chrome to
// paint it, seconds on a quiet machine and maybe never on a loaded one:
// Page.bringToFront shows it), busy in a script, or hung
// ([Watcher.Recover] brings it back). A full page larger
// than Options.MaxCapturePixels is refused with [ErrCaptureTooLarge]
// before anything is painted.
func (w *Watcher) Screenshot(ctx context.Context, fullPage bool, req *proto.PageCaptureScreenshot) ([]byte, error) {
	var shot []byte
	err := w.t.Screenshot(ctx, fullPage, maxCapturePixels, func(ctx context.Context) error {
		var err error
		shot, err = w.page.Context(ctx).Screenshot(fullPage, req)
		return err
	})
	return shot, err
}

// PDF prints the tab to PDF, as rod's page.PDF does with req (nil means
// Chrome's defaults), and returns the document. It is [Watcher.PDFTo]
// into memory: use PDFTo to write a large document where it goes.
func (w *Watcher) PDF(ctx context.Context, req *proto.PagePrintToPDF) ([]byte, error) {
	var buf bytes.Buffer
	_, err := w.PDFTo(ctx, &buf, req)
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PDFTo prints the tab to PDF, as rod's page.PDF does with req (nil means
// Chrome's defaults; its TransferMode is ignored), and writes the document
// to dst as it comes. Chrome hands it over as a stream, read
// Options.PDFChunk bytes at a time (IO.read), so no CDP message, and no
// buffer of the watcher's, holds more than a chunk: a 200-page PDF of
// 15 MiB costs a few MiB of memory, not the 60 and more a single message
// does. It has the guard and the deadline of [Watcher.Do]: refused on a
// tab that cannot answer, and a timeout named "PDF" that says what the tab
// was doing. The time dst takes counts against that deadline.
//
// A renderer that dies while the tab prints answers [ErrTabCrashed]. Once
// printed, the document is the browser's: it is read to its end whatever
// the renderer does, and a crash then is the next call's refusal.
//
// It returns the bytes written. An error after dst took bytes says how
// many: they are the start of the document, never a whole one, so discard
// them (truncate or remove the file). An error of dst's ends the PDF.
func (w *Watcher) PDFTo(ctx context.Context, dst io.Writer, req *proto.PagePrintToPDF) (int64, error) {
	var params any
	if req != nil {
		params = req
	}
	return w.t.PDF(ctx, params, dst)
}
