package tabguard

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/tabguard/tabguard/internal/cdpws"
)

// Connect opens a rod browser over the DevTools endpoint at rawURL: a
// ws:// or wss:// URL, query string included (?token=...), as browser pools
// hand out, or an http://host:port endpoint, resolved through its
// /json/version as rod's launcher resolves one. ctx bounds the whole
// handshake; when it ends first, the socket is closed, so a pool that
// queued the request frees its slot.
//
// The browser's transport never panics. rod's own reader parses whatever
// the socket delivers as JSON and panics on anything else, as on the plain
// "HTTP/1.1 408 Request Timeout" that browserless writes into the upgraded
// socket when a session times out. Here a close frame, bytes that are not a
// WebSocket frame or not CDP JSON, and a reset end the connection with a
// [*ConnectionError] naming the reason, which every watcher of the browser
// reports as [ErrBrowserGone], calls in flight included.
//
// A connection that drops while the browser may live on (a reset, a
// socket closed without a close frame, a close frame saying the server
// goes away or restarts) is resumed: the same endpoint is dialed again
// for up to DefaultResume (ConnectOptions.Resume), and once the same
// browser answers, every tab is attached again by its target ID and sent
// the settings its session had (the domains enabled, the policies, the
// scripts for new documents). The program's rod pages keep working, and
// each watcher learns its tabs again: one that crashed, closed or
// navigated meanwhile says so. A call the drop cut answers
// [ErrConnectionDropped], saying the connection was resumed: it may be
// sent again. A call made meanwhile waits, within its deadline. A browser
// that does not come back, or another browser at the endpoint, answers
// [ErrBrowserGone] with the reason of the last try.
//
// The caller should call the browser's Close when finished, which for a
// pool also ends the session, or [Disconnect], which leaves the browser
// running.
func Connect(ctx context.Context, rawURL string) (*rod.Browser, error) {
	return ConnectWith(ctx, rawURL, nil)
}

// ConnectOptions says how [ConnectWith] reaches a browser.
type ConnectOptions struct {
	// Header goes with the /json/version request and the WebSocket
	// handshake, for a pool that takes its key in a header:
	// http.Header{"Authorization": {"Bearer " + key}}. No error or log
	// line quotes it.
	Header http.Header
	// Resume is how long a dropped connection is dialed again while the
	// browser may live on; zero means DefaultResume, a negative value
	// never. See ConnectWith.
	Resume time.Duration
}

// DefaultResume is how long a dropped connection is dialed again by
// default: 30 s, the time browserless keeps a browser for a client to
// come back, the shortest such window of the pools.
const DefaultResume = cdpws.DefaultResume

// resume is the window of opts, which may be nil.
func (o *ConnectOptions) resume() time.Duration {
	if o == nil {
		return DefaultResume
	}
	return cdpws.Window(o.Resume)
}

// ConnectWith is [Connect] with opts, which may be nil.
func ConnectWith(ctx context.Context, rawURL string, opts *ConnectOptions) (*rod.Browser, error) {
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context", ErrInvalidArgument)
	}
	var header http.Header
	if opts != nil {
		header = opts.Header.Clone()
	}
	wsURL, err := cdpws.ResolveURL(ctx, rawURL, header)
	if err != nil {
		return nil, err
	}
	conn, err := cdpws.NewResumer(ctx, wsURL, header, cdpws.ResumeOptions{Window: opts.resume(), StaleObjects: true})
	if err != nil {
		return nil, err
	}
	t := &transport{conn: conn}
	conn.Subscribe(cdpws.ResumeHooks{Dropped: t.dropped, Resumed: t.resumed})
	b := rod.New().Client(client{Client: cdp.New().Start(t), t: t})
	// rod's Connect sends Target.setDiscoverTargets under the browser's own
	// context, which has no deadline: the socket's closing bounds it.
	done := make(chan error, 1)
	go func() { done <- b.Connect() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = conn.Close()
		<-done
		err = ctx.Err()
	}
	if err != nil {
		_ = conn.Close()
		return nil, &cdpws.RedactedError{URL: wsURL, Err: err}
	}
	connections.Store(b, conn)
	return b, nil
}

// connections holds the connection of each browser Connect returned, for
// Disconnect.
var connections sync.Map // *rod.Browser → *cdpws.Resumer

// Disconnect ends the connection of b, a browser [Connect] or
// [ConnectWith] returned, and leaves the browser running, as Puppeteer's
// browser.disconnect does: a browser of the program's own, or another
// program's, goes on; a pool keeps the session until its own timeout.
// (b.Close closes the browser, and for a pool ends the session.) The calls
// in flight and every call after it answer ErrBrowserGone. A browser that
// Connect did not return gives [ErrInvalidArgument].
func Disconnect(b *rod.Browser) error {
	conn, ok := connections.LoadAndDelete(b)
	if !ok {
		return fmt.Errorf("%w: not a browser Connect returned, or disconnected already: pass the one it returned", ErrInvalidArgument)
	}
	return conn.(*cdpws.Resumer).Close()
}
