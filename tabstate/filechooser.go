package tabstate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrFileChooser reports that a file chooser the page opened while the
// call ran was cancelled: the page asked for files (an <input type=file>
// clicked) and was told none were chosen, as when a user closes the
// dialog. The call itself ran; Detail names the input's mode
// ("selectSingle" or "selectMultiple") and, when a program's
// Options.FileChooser was asked, why its answer was not used.
var ErrFileChooser = errors.New("file chooser was cancelled")

// FileChooser is a file chooser a page opened, as a program's
// Options.FileChooser sees it.
type FileChooser struct {
	// FrameID is the frame whose input asked for files: the tab's target
	// ID for its main frame.
	FrameID string
	// Multiple says the input takes several files (its multiple
	// attribute); otherwise it takes one.
	Multiple bool
	// URL is the tab's URL when the chooser opened.
	URL string
}

// Chooser modes, as Page.fileChooserOpened names them.
const (
	ChooserSingle   = "selectSingle"
	ChooserMultiple = "selectMultiple"
)

// Why a program's files were not given to the page, in the Detail of an
// ErrFileChooser.
const (
	chooserFailed   = "Options.FileChooser failed"
	chooserNoFiles  = "Options.FileChooser chose no file"
	chooserTooMany  = "files for a single-file input"
	chooserRelative = "which is not an absolute path"
)

// ChooserCancelled is the refusal of a call during which the page's file
// chooser of mode (Chrome's: "selectSingle" or "selectMultiple") on the
// tab at rawURL was cancelled; why, when a program's Options.FileChooser
// was asked, is why its answer was not used (see CheckChosen), and nil
// when none is set.
func ChooserCancelled(rawURL, mode string, why error) *BlockedError {
	detail := mode + " input"
	if why != nil {
		detail += ": " + why.Error()
	}
	return &BlockedError{Reason: ErrFileChooser, URL: rawURL, Detail: detail}
}

// CheckChosen checks the answer of a program's Options.FileChooser, files
// or err, for an input that takes several files (multiple) or one. It
// returns nil when the files can be given to the page, and otherwise why
// not: the callback's error, no file, several files for a single-file
// input, or, wrapping [ErrInvalidArgument], a path that is not absolute
// (the browser would take it relative to its own working directory).
func CheckChosen(files []string, multiple bool, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", chooserFailed, err)
	case len(files) == 0:
		return errors.New(chooserNoFiles)
	case len(files) > 1 && !multiple:
		return fmt.Errorf("Options.FileChooser chose %d %s", len(files), chooserTooMany)
	}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			return fmt.Errorf("%w: Options.FileChooser chose %q, %s", ErrInvalidArgument, f, chooserRelative)
		}
	}
	return nil
}

// chooserAdvice is the remedy of an ErrFileChooser with detail.
func chooserAdvice(detail string) string {
	const told = "the call ran and the page was told no file was chosen"
	switch {
	case strings.HasSuffix(detail, chooserRelative):
		return told + ": Options.FileChooser must return absolute paths"
	case strings.HasSuffix(detail, chooserTooMany):
		return told + ": Options.FileChooser must return one path for a single-file input"
	case strings.Contains(detail, ": Options.FileChooser "):
		return told + ": Options.FileChooser decides which files the page gets"
	}
	return told + ": set Options.FileChooser to give the page files"
}
