package chromedp015guard

import (
	"bytes"
	"context"
	"io"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
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

// Screenshot captures the tab's viewport as PNG, or with fullPage the whole
// page, as JPEG of quality or PNG for a quality of 100, as
// chromedp.CaptureScreenshot and chromedp.FullScreenshot do, with the
// guard of [Watcher.Do]: refused on a tab that cannot answer, cut short
// when the renderer dies, and a timeout that names the screenshot and what
// the tab was doing: hidden (a background tab's screenshot waits for
// Chrome to paint it, seconds on a quiet machine and maybe never on a
// loaded one: page.BringToFront shows it), busy in a script, or hung
// ([Watcher.Recover] brings it back). A
// full page larger than Options.MaxCapturePixels is refused with
// [ErrCaptureTooLarge] before anything is painted. ctx is any context; the
// call goes to the watched tab.
func (w *Watcher) Screenshot(ctx context.Context, fullPage bool, quality int) ([]byte, error) {
	var shot []byte
	err := w.t.Screenshot(ctx, fullPage, maxCapturePixels, func(ctx context.Context) error {
		ctx = cdp.WithExecutor(ctx, w.target)
		if fullPage {
			return chromedp.FullScreenshot(&shot, quality).Do(ctx)
		}
		return chromedp.CaptureScreenshot(&shot).Do(ctx)
	})
	return shot, err
}

// PDF prints the tab to PDF, as page.PrintToPDF does with params (nil
// means Chrome's defaults), and returns the document. It is
// [Watcher.PDFTo] into memory: use PDFTo to write a large document where
// it goes. ctx is any context; the call goes to the watched tab.
func (w *Watcher) PDF(ctx context.Context, params *page.PrintToPDFParams) ([]byte, error) {
	var buf bytes.Buffer
	_, err := w.PDFTo(ctx, &buf, params)
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PDFTo prints the tab to PDF, as page.PrintToPDF does with params (nil
// means Chrome's defaults; its TransferMode is ignored), and writes the
// document to dst as it comes. Chrome hands it over as a stream, read
// Options.PDFChunk bytes at a time (IO.read), so no CDP message, and no
// buffer of the watcher's, holds more than a chunk: a 200-page PDF of
// 15 MiB costs a few MiB of memory, not the 60 and more a single message
// does. It has the guard and the deadline of [Watcher.Do]: refused on a
// tab that cannot answer, and a timeout named "PDF" that says what the tab
// was doing. The time dst takes counts against that deadline. ctx is any
// context; the call goes to the watched tab.
//
// A renderer that dies while the tab prints answers [ErrTabCrashed]. Once
// printed, the document is the browser's: it is read to its end whatever
// the renderer does, and a crash then is the next call's refusal.
//
// It returns the bytes written. An error after dst took bytes says how
// many: they are the start of the document, never a whole one, so discard
// them (truncate or remove the file). An error of dst's ends the PDF.
//
// The cdproto releases of chromedp up to v0.15 send the margins of
// params even when they are zero, as page.PrintToPDF().Do does: a zero
// margin prints none, where nil params keep Chrome's 1 cm.
func (w *Watcher) PDFTo(ctx context.Context, dst io.Writer, params *page.PrintToPDFParams) (int64, error) {
	var p any
	if params != nil {
		p = params
	}
	return w.t.PDF(ctx, p, dst)
}
