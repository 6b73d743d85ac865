package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/tabguard/tabguard/tabstate"
)

// Downloads. Measured on Chromium 156: a navigation to a file (a
// Content-Disposition: attachment response) answers Page.navigate with
// errorText net::ERR_ABORTED and isDownload true, sends Network.loadingFailed
// (ERR_ABORTED, canceled) for its loader before or after that reply, and
// commits nothing: the old document stays and answers. Left to the browser's
// default, the file is written into the browser user's ~/Downloads without
// a word, as "x.bin", then "x (1).bin". So the Browser sets a policy once,
// as it starts (Browser.setDownloadBehavior for the default browser
// context, which needs no browserContextId): deny every download, or save
// each into Config.DownloadDir under its GUID ("allowAndName": two files of
// one name never overwrite each other). What a download became is read
// from Chrome's reports alone, never from the policy this Browser set: a
// later client of the browser may have set another (download.report).
// Browser.downloadProgress names the saved file's path once it completed
// (filePath, Chrome 128 and later).
// Either way it asks for the browser-session events Browser.downloadWillBegin
// (frame, GUID, URL, suggested name) and Browser.downloadProgress (GUID,
// bytes, state), which come after the reply: the driver pushes them in with
// Download. Chrome sends them only to the DevTools connection that set the
// policy last: a second client of the browser that sets it takes them.
// Their page-session twins, Page.downloadWillBegin and Page.downloadProgress
// (deprecated, and gone from cdproto since v0.160), are taken in too where a
// driver decodes them, whichever comes first.

// downloadBehaviorParams is Browser.setDownloadBehavior's.
type downloadBehaviorParams struct {
	Behavior         string `json:"behavior"`
	BrowserContextID string `json:"browserContextId,omitempty"`
	DownloadPath     string `json:"downloadPath,omitempty"`
	EventsEnabled    bool   `json:"eventsEnabled"`
}

// downloadPolicy sets the download policy of the browser context bc (""
// is the default one): deny, or save into dir (contexts.go).
func (b *Browser) downloadPolicy(ctx context.Context, s *starter, bc string) error {
	p := downloadBehaviorParams{Behavior: "deny", BrowserContextID: bc, EventsEnabled: true}
	if dir := b.downloadDir(); dir != "" {
		p.Behavior, p.DownloadPath = "allowAndName", dir
	}
	return s.call(ctx, b.browser, "Browser.setDownloadBehavior"+inContext(bc), "Browser.setDownloadBehavior", p, nil)
}

// keptDownloads bounds how many downloads a tab remembers: a page that
// downloads on and on must not grow it.
const keptDownloads = 16

// download is what the events told of one download of a tab.
type download struct {
	n    uint64 // its number among the tab's downloads, from 1
	guid string
	d    tabstate.Download
}

// finished reports whether Chrome is done with it.
func (d *download) finished() bool {
	return d.d.State == "completed" || d.d.State == "canceled" || d.d.State == "denied"
}

// report takes in Chrome's progress report of it: its fate is what Chrome
// says, whatever policy is in force and whoever set it. A download
// canceled before a byte came was denied: measured on Chromium 156, a
// policy that denies downloads reports one in progress with no bytes,
// then canceled.
func (d *download) report(e tabstate.DownloadProgress) {
	d.d.State, d.d.Bytes = e.State, e.ReceivedBytes
	if e.State == "canceled" && e.ReceivedBytes == 0 {
		d.d.State = "denied"
	}
	if e.FilePath != "" {
		d.d.Path = e.FilePath
	}
}

// Download takes in Browser.downloadWillBegin or Browser.downloadProgress
// (a [tabstate.DownloadWillBegin] or [tabstate.DownloadProgress]) and hands
// it to the tabs of the target whose main frame downloads. A download of an
// iframe reaches no tab: only the main frame's answers Navigate. Like every
// intake method it never blocks and never sends a command.
func (b *Browser) Download(ev tabstate.Event) {
	var id string
	b.fmu.Lock()
	switch e := ev.(type) {
	case tabstate.DownloadWillBegin:
		id = e.FrameID
		if b.downloads == nil {
			b.downloads = map[string]string{}
		}
		if _, twin := b.downloads[e.GUID]; !twin && len(b.downloads) < 4*keptDownloads {
			b.downloads[e.GUID] = id
		}
	case tabstate.DownloadProgress:
		id = b.downloads[e.GUID]
		if e.State == "completed" || e.State == "canceled" {
			delete(b.downloads, e.GUID)
		}
	}
	b.fmu.Unlock()
	if id == "" {
		return
	}
	b.mu.RLock()
	var tabs []*Tab
	if tg := b.targets[id]; tg != nil {
		tabs = tg.tabs
	}
	b.mu.RUnlock()
	for _, t := range tabs {
		t.download(ev)
	}
}

// download records a download event of the tab's and wakes its waiters,
// logging a download Chrome is done with.
func (t *Tab) download(ev tabstate.Event) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	var done *download
	switch e := ev.(type) {
	case tabstate.DownloadWillBegin:
		for _, d := range t.downloads {
			if d.guid == e.GUID {
				t.mu.Unlock() // its twin came first
				return
			}
		}
		t.downloadsBegun++
		d := &download{n: t.downloadsBegun, guid: e.GUID, d: tabstate.Download{URL: e.URL, Name: e.SuggestedFilename}}
		t.downloads = append(t.downloads, d)
		if len(t.downloads) > keptDownloads {
			t.downloads = t.downloads[1:]
		}
		t.cutForDownload()
	case tabstate.DownloadProgress:
		for _, d := range t.downloads {
			switch {
			case d.guid != e.GUID:
			case !d.finished():
				d.report(e)
				if d.finished() {
					done = d
				}
			case e.FilePath != "": // the browser's twin of a page event
				d.d.Path = e.FilePath
			}
		}
	}
	var ended tabstate.Download
	if done != nil {
		ended = done.d
	}
	t.broadcast()
	t.mu.Unlock()
	if done != nil {
		if ended.State == "completed" && ended.Path == "" {
			ended.Path = t.b.savedHere(done.guid, ended.Bytes)
		}
		t.logf("tabguard: download ended", tabstate.Downloaded("", ended))
	}
}

// savedHere is the path of the file that the download guid saved, as this
// Browser's policy names it, when that file is there with its size: a
// driver whose library drops Browser.downloadProgress's filePath (rod's
// proto) learns the path so, and only where the policy in force is this
// Browser's, whoever else set one. Empty otherwise.
func (b *Browser) savedHere(guid string, size int64) string {
	dir := b.downloadDir()
	if dir == "" || guid == "" {
		return ""
	}
	path := filepath.Join(dir, guid)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return ""
	}
	return path
}

// downloadDir is where downloads are saved, made absolute as Chrome needs
// it, or empty when they are denied.
func (b *Browser) downloadDir() string {
	if b.cfg.DownloadDir == "" {
		return ""
	}
	abs, err := filepath.Abs(b.cfg.DownloadDir)
	if err != nil {
		return b.cfg.DownloadDir
	}
	return abs
}

// begun is how many downloads the tab began so far.
func (t *Tab) begun() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.downloadsBegun
}

// downloaded is the answer of a navigation to url that Chrome turned into
// a download (Page.navigate answered isDownload): an ErrDownload, never a
// failed load, for the tab keeps its document. The loader's cancel is
// applied as Chrome reports it, in case its event trails the reply. The
// answer waits a moment for the download's first event, which trails the
// reply, to name the file (downloadAnswer).
func (t *Tab) downloaded(ctx context.Context, url, loader string, n0 uint64) error {
	if t.b.sync(ctx) == nil && loader != "" {
		t.Apply(tabstate.LoadingFailed{RequestID: loader, ErrorText: "net::ERR_ABORTED", Canceled: true})
	}
	t.await(ctx, t.b.downloadGrace(), func() bool { return t.downloadAfter(n0) != nil })
	return t.downloadAnswer(ctx, url, n0)
}

// downloadAfter is the first download the tab began after its n0-th that
// it still remembers, or nil. t.mu must be held.
func (t *Tab) downloadAfter(n0 uint64) *download {
	for _, d := range t.downloads {
		if d.n > n0 {
			return d
		}
	}
	return nil
}

// downloadAnswer is the ErrDownload of the first download the tab began
// after its n0-th, once Chrome is done with it: at once for a denied one,
// once written for a saved one, within ctx. url names the file when no
// event told of it.
func (t *Tab) downloadAnswer(ctx context.Context, url string, n0 uint64) error {
	t.mu.Lock()
	told := t.downloadAfter(n0) != nil
	t.mu.Unlock()
	var d tabstate.Download
	if told {
		t.await(ctx, maxWait(ctx), func() bool {
			x := t.downloadAfter(n0)
			return x == nil || x.finished()
		})
		var guid string
		t.mu.Lock()
		if x := t.downloadAfter(n0); x != nil {
			d, guid = x.d, x.guid
		}
		t.mu.Unlock()
		if d.State == "completed" && d.Path == "" {
			d.Path = t.b.savedHere(guid, d.Bytes)
		}
	}
	be := tabstate.Downloaded(url, d)
	if d.State == "denied" && t.b.downloadDir() != "" {
		be.Detail += ", though this watcher's policy saves downloads: a policy set since by another watcher or client of the browser holds"
	}
	return t.b.cfg.Advice.Refusal(be)
}

// A guarded call during which the tab begins a download answers
// ErrDownload too, at once, as Navigate does: the call may wait for a load
// that will never come (a Do that clicked a link, then waits for the
// load; chromedp v0.15's Navigate), or its script set the location and
// waits. So a download the tab's main frame begins cuts short every call
// in flight through Do (cutForDownload). A call that answered before
// Chrome told of the download keeps its answer: an eval's value is the
// page's, which the download left in place. A program's call that failed
// at the reply to its own navigation (rod's Navigate answers
// net::ERR_ABORTED, chromedp's a load error), which Chrome sends before the
// download's first event, waits for that event (downloadDuring).

// errDownloadBegun is the cause of a call that a download cut short; the
// call answers the download's ErrDownload.
var errDownloadBegun = errors.New("a download began")

// cutForDownload cuts short the calls in flight that a download ends:
// those during which the main frame began a navigation, which became the
// download. A download of its own (a click on an <a download>) starts no
// navigation and leaves the calls alone: the page answers them. t.mu must
// be held.
func (t *Tab) cutForDownload() {
	for call := range t.inflight {
		if call.onDownload && t.tab.Navigations() > call.navigations {
			call.cut(errDownloadBegun)
			delete(t.inflight, call)
		}
	}
}

// downloadDuring is the answer of call, which failed with err: the
// ErrDownload of a download the tab began while it ran, or nil. An error
// that the driver reads as an aborted navigation (LoadFailer) waits up to
// downloadGrace for the download's first event, which trails the reply.
func (t *Tab) downloadDuring(ctx context.Context, call *inflight, err error) error {
	began := func() bool { return t.downloadsBegun > call.downloads }
	t.mu.Lock()
	ok := began()
	t.mu.Unlock()
	if !ok && t.b.aborted(err) {
		ok = t.await(ctx, t.b.downloadGrace(), began)
	}
	if !ok {
		return nil
	}
	return t.downloadSince(ctx, call)
}

// downloadSince is the ErrDownload of the first download the tab began
// since call was admitted, within the call's deadline.
func (t *Tab) downloadSince(ctx context.Context, call *inflight) error {
	ctx, cancel := context.WithDeadline(ctx, call.clock.deadline)
	defer cancel()
	return t.downloadAnswer(ctx, "", call.downloads)
}

// downloadGrace bounds the wait for a download's first event: the
// engine's patience (1 s by default), or more as the link shows. Measured
// on Chromium 156, it comes within milliseconds of the reply, or, about
// one navigation in ten when the page before had not finished loading,
// never (neither the browser's event nor the page's twin): the answer then
// names the file by its URL.
func (b *Browser) downloadGrace() time.Duration { return b.patience() }

// maxWait is how long ctx leaves, or an hour when it has no deadline.
func maxWait(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl)
	}
	return time.Hour
}
