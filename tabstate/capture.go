package tabstate

import (
	"errors"
	"fmt"
)

// ErrCaptureTooLarge reports a full-page screenshot of a page larger than
// the watcher's bound in pixels (Options.MaxCapturePixels): the error
// names the page's size and the bound. Chrome would paint the whole page
// into one bitmap in the renderer, four bytes a pixel, however large.
var ErrCaptureTooLarge = errors.New("capture too large")

// DefaultMaxCapturePixels bounds a full-page screenshot when the options
// give no bound: 2^26 device pixels (8192 × 8192, or 1280 × 52,428), a
// 256 MiB bitmap in the renderer.
const DefaultMaxCapturePixels = 1 << 26

// DefaultPDFChunk is how many bytes of a PDF each IO.read asks Chrome for
// when the options give no size: 64 KiB. On a 10 MB PDF it holds the Go
// heap's peak to that of a program reading 32 KiB chunks (2.7 MiB above a
// collected heap, against 6 to 9 MiB with 1 MiB chunks) in the same time
// on a local browser; a browser far away costs a round trip a read, and
// reads a large PDF quicker in larger chunks. Chrome's own default is
// 10 MiB a read, and a PDF taken in one message arrives whole, base64
// encoded.
const DefaultPDFChunk = 64 << 10

// CaptureTooLarge is the error of a full-page screenshot of a page of
// width × height device pixels, over bound; option names the setting that
// raises the bound, as the backend spells it.
func CaptureTooLarge(width, height, bound int64, option string) error {
	return fmt.Errorf("%w: full-page screenshot of %d×%d device pixels is %s, over the bound of %s: "+
		"capture the viewport, or raise %s", ErrCaptureTooLarge, width, height, megapixels(width*height), megapixels(bound), option)
}

// megapixels words n pixels as "115.2 megapixels".
func megapixels(n int64) string {
	return fmt.Sprintf("%.1f megapixels", float64(n)/1e6)
}
