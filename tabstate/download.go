package tabstate

import (
	"errors"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// ErrDownload reports that a navigation became a download: the server
// sent a file to save (Content-Disposition: attachment, or a type the
// browser does not show) rather than a page. Chrome aborts the navigation
// (net::ERR_ABORTED) and keeps the document the tab had, which still
// answers. Detail names the file and what became of it.
var ErrDownload = errors.New("navigation became a download")

// DownloadWillBegin is Browser.downloadWillBegin (browser session, sent
// once Browser.setDownloadBehavior asked for events): a frame is about to
// download a file. FrameID is the tab's target ID for its main frame.
type DownloadWillBegin struct{ FrameID, GUID, URL, SuggestedFilename string }

// DownloadProgress is Browser.downloadProgress. State is Chrome's:
// "inProgress", then "completed" or "canceled" (a denied download is
// canceled at once).
type DownloadProgress struct {
	GUID, State               string
	TotalBytes, ReceivedBytes int64
	// FilePath is where Chrome saved the file, once State is "completed"
	// (Chrome 128 and later; empty before).
	FilePath string
}

func (DownloadWillBegin) isEvent() {}
func (DownloadProgress) isEvent()  {}

// Download is what a browser's events told of one download.
type Download struct {
	// URL is the file's URL, after redirects.
	URL string
	// Name is the file name the server suggested, or the URL's last
	// segment when no event named it.
	Name string
	// Path is where the browser saved it, as Chrome reported it; empty
	// when it was not saved, or Chrome did not say.
	Path string
	// Bytes is how many bytes the browser received.
	Bytes int64
	// State is Chrome's last word on it: "completed", "canceled",
	// "inProgress", "denied" (canceled before it began, as a policy that
	// denies downloads cancels it), or empty when no event came: Chrome
	// reports downloads only to the DevTools client that set its download
	// policy last.
	State string
}

// Downloaded is the answer of a navigation to rawURL that became the
// download d (a zero d when no event told of it): an [ErrDownload] whose
// Detail names the file and says what Chrome reported of it: denied,
// canceled, saved where and how big, still downloading, or nothing.
func Downloaded(rawURL string, d Download) *BlockedError {
	if d.URL == "" {
		d.URL = rawURL
	}
	name := d.Name
	if name == "" {
		name = urlFileName(d.URL)
	}
	size := strconv.FormatInt(d.Bytes, 10) + " bytes"
	var what string
	switch d.State {
	case "completed":
		what = " saved (" + size + "), where the browser did not say"
		if d.Path != "" {
			what = " saved at " + d.Path + " (" + size + ")"
		}
	case "inProgress":
		what = " still downloading (" + size + " so far)"
	case "denied":
		what = " " + downloadDenied
	case "canceled":
		what = " canceled"
	default:
		what = " " + downloadUnreported
	}
	return &BlockedError{Reason: ErrDownload, URL: d.URL, Detail: strconv.Quote(name) + what}
}

// The ends of a Detail that the advice reads.
const (
	downloadDenied     = "denied"
	downloadUnreported = "unreported"
)

// downloadAdvice is the remedy of an ErrDownload with detail.
func downloadAdvice(detail string) string {
	const kept = "the page was not left and still answers"
	switch {
	case strings.HasSuffix(detail, " "+downloadDenied):
		return kept + ": set Options.DownloadDir to save files into a directory"
	case strings.Contains(detail, " saved at "):
		return kept + ": read the file from its path"
	case strings.Contains(detail, " still downloading "):
		return kept + ": the file is still being written"
	case strings.HasSuffix(detail, " "+downloadUnreported):
		return kept + ": the browser told nothing of the file: it reports downloads only to the DevTools client that set its download policy last " +
			"(another client may have set one since this watcher started, and that policy decides where the file goes), " +
			"and not always for a navigation that began before the page it leaves had loaded"
	}
	return kept
}

// urlFileName is the last segment of rawURL's path, or its host.
func urlFileName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	if base := path.Base(u.Path); base != "/" && base != "." {
		return base
	}
	return u.Host
}
