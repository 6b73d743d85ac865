package faultrows

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
)

// Isolated is the site-isolated browser the package's tests share: an
// iframe of another site runs in a renderer process, and a target, of its
// own, as in Chrome's default, chromedp's, a pool's or a user's browser.
const Isolated Browser = Discardable + 1

// IsolatedOwn is a site-isolated browser of the row's own: for a fault
// that crashes an out-of-process iframe's renderer, which Chrome shares
// between the iframes of one site in every tab of the browser.
const IsolatedOwn Browser = Isolated + 1

// Frame pages, served by FramePages under FramesPrefix: FramePage names a
// page with iframes, CrossSite puts an iframe of another site on it.
const (
	// FramesPrefix is the path FramePages serves.
	FramesPrefix = "/frames/"
	// FrameInner is an iframe's page: it is titled inner-<n> and sets
	// the global innerVar.
	FrameInner = FramesPrefix + "inner?n="
)

// FramePage is the path of a page with iframes: "same" (one of the same
// site, #a), "cross" (one of another site, #b: localhost on the server's
// port), "lazy" (one far below the fold, loading=lazy), "stall" (one whose
// server never answers), "dead" (one of a port nothing listens on),
// "reload" (one that reloads itself every 50 ms).
func FramePage(name string) string { return FramesPrefix + "page/" + name }

// FramePages serves the frame pages. dead is a URL nothing answers, and a
// stalled iframe waits until its request ends or quit closes.
func FramePages(dead string, quit <-chan struct{}) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(FramesPrefix+"inner", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		fmt.Fprintf(w, `<!doctype html><title>inner-%s</title><script>window.innerVar = "iv-" + location.host</script><p>inner %s</p>`, n, n)
	})
	mux.HandleFunc(FramesPrefix+"reload50", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>reload50</title><script>window.innerVar = 1; setTimeout(() => location.reload(), 50)</script>`)
	})
	mux.HandleFunc(FramesPrefix+"stall", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	})
	mux.HandleFunc(FramesPrefix+"page/", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host)
		cross := "http://localhost:" + port + FrameInner
		frames := map[string]string{
			"two":    `<iframe id=a src="` + FrameInner + `a"></iframe><iframe id=b src="` + cross + `b"></iframe>`,
			"same":   `<iframe id=a src="` + FrameInner + `a"></iframe>`,
			"cross":  `<iframe id=b src="` + cross + `b"></iframe>`,
			"lazy":   `<div style="height:30000px"></div><iframe id=l loading=lazy src="` + FrameInner + `lazy"></iframe>`,
			"stall":  `<iframe id=s src="` + FramesPrefix + `stall"></iframe>`,
			"dead":   `<iframe id=d src="` + dead + `"></iframe>`,
			"reload": `<iframe id=r src="` + FramesPrefix + `reload50"></iframe>`,
			"blank":  `<iframe id=e></iframe><script>document.getElementById("e").contentDocument.body.innerHTML = "<p>written</p>"</script>`,
		}[strings.TrimPrefix(r.URL.Path, FramesPrefix+"page/")]
		fmt.Fprintf(w, `<!doctype html><title>outer</title><script>window.mainVar = 1</script><p>outer</p>%s`, frames)
	})
	return mux
}

// TitleWhenLoaded is a function that answers its document's title once it
// has loaded: a frame is listed once its document commits, before it is
// parsed.
const TitleWhenLoaded = `() => new Promise(r => document.readyState == "complete" ? r(document.title) : addEventListener("load", () => r(document.title)))`

// frameRows are faults of a tab's iframes, each with site isolation off
// and, where it differs, on: an eval in an iframe (EvalFrame) answers from
// the right frame, or with its reason, and the tab lives on.
func frameRows() []Row {
	var rows []Row
	for _, mode := range []struct {
		suffix       string
		browser, own Browser
	}{{"", Shared, Dedicated}, {", site isolation", Isolated, IsolatedOwn}} {
		rows = append(rows,
			Row{
				Name: "iframe of another site" + mode.suffix, Path: FramePage("cross"), Browser: mode.browser,
				Msg: []string{"inner-b"},
			},
			Row{
				// A browser of its own: measured on Chromium 156, a tab that
				// another tab hides while its page loads (a newer tab of the
				// same browser) loads its lazy iframes at once.
				Name: "iframe lazy, out of view" + mode.suffix, Path: FramePage("lazy"), Browser: mode.own,
				Want: tabstate.ErrEvalTimeout, Cause: tabstate.TimeoutLoading,
				Msg: []string{"frame eval timed out after 2s", "never loaded a document: a lazy iframe out of view"},
			},
			Row{
				Name: "iframe server never answers" + mode.suffix, Path: FramePage("stall"), Browser: mode.browser,
				Want: tabstate.ErrEvalTimeout, Cause: tabstate.TimeoutLoading,
				Msg: []string{"frame eval timed out after 2s", "still loading http://127.0.0.1:", "its server never answered"},
			},
			Row{
				Name: "iframe load refused" + mode.suffix, Path: FramePage("dead"), Browser: mode.browser,
				Want: tabstate.ErrNoDocument, Fast: true,
				Msg: []string{"frame has no document: net::ERR_CONNECTION_REFUSED loading http://127.0.0.1:", "reload the tab (Watcher.Reload)"},
			},
			Row{
				Name: "iframe removed during eval" + mode.suffix, Path: FramePage("same"), Browser: mode.browser,
				Want: tabstate.ErrFrameDetached, Fast: true, Msg: []string{"frame is detached"},
			},
			Row{
				// Each eval answers, or says the frame navigated: no raw
				// protocol error reaches the caller.
				Name: "iframe reloads every 50 ms" + mode.suffix, Path: FramePage("reload"), Browser: mode.browser,
				EvalTimeout: navigateTimeout, Msg: []string{"other errors 0"},
			},
		)
	}
	rows = append(rows,
		Row{
			Name: "iframe navigates during eval", Path: FramePage("same"),
			Want: tabstate.ErrNavigated, Fast: true, Msg: []string{"frame navigated away during the eval (now at http://localhost:"},
		},
		Row{
			Name: "iframe moves out of process during eval", Path: FramePage("same"), Browser: Isolated,
			Want: tabstate.ErrFrameDetached, Fast: true, Msg: []string{"moved to a process of its own during the call"},
		},
		Row{
			Name: "iframe renderer crashed", Path: FramePage("cross"), Browser: IsolatedOwn,
			Want: tabstate.ErrFrameCrashed, Fast: true, Msg: []string{"frame renderer crashed (reason: crashed) in http://localhost:"},
		},
		Row{
			Name: "iframe renderer crashes during eval", Path: FramePage("cross"), Browser: IsolatedOwn,
			Want: tabstate.ErrFrameCrashed, Fast: true, Msg: []string{"frame renderer crashed"},
		},
	)
	for i := range rows {
		rows[i].WatchFirst = true
	}
	return rows
}
