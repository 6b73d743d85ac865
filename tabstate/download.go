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
	// Path is where the browser saved it; empty when it was not saved.
	Path string
	// Bytes is how many bytes the browser received.
	Bytes int64
	// State is Chrome's last word on it: "completed", "canceled",
	// "inProgress", or empty when no event came.
	State string
}

// Downloaded is the answer of a navigation to rawURL that became the
// download d (a zero d when no event told of it): an [ErrDownload] whose
// Detail names the file and says whether it was denied or where it was
// saved.
func Downloaded(rawURL string, d Download) *BlockedError {
	if d.URL == "" {
		d.URL = rawURL
	}
	name := d.Name
	if name == "" {
		name = urlFileName(d.URL)
	}
	var what string
	switch {
	case d.State == "completed" && d.Path != "":
		what = " saved at " + d.Path + " (" + strconv.FormatInt(d.Bytes, 10) + " bytes)"
	case d.State == "inProgress" && d.Path != "":
		what = " still downloading to " + d.Path + " (" + strconv.FormatInt(d.Bytes, 10) + " bytes so far)"
	case d.Path == "":
		what = " " + downloadDenied
	default:
		what = " canceled"
	}
	return &BlockedError{Reason: ErrDownload, URL: d.URL, Detail: strconv.Quote(name) + what}
}

// downloadDenied ends the Detail of a download the policy denied.
const downloadDenied = "denied"

// downloadAdvice is the remedy of an ErrDownload with detail.
func downloadAdvice(detail string) string {
	const kept = "the page was not left and still answers"
	switch {
	case strings.HasSuffix(detail, " "+downloadDenied):
		return kept + "; set Options.DownloadDir to save files into a directory"
	case strings.Contains(detail, " saved at "):
		return kept + "; read the file from its path"
	case strings.Contains(detail, " still downloading to "):
		return kept + "; the file is still being written at its path"
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
