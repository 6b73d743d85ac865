package chromedpguard

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/internal/engine"
)

// NewRemoteAllocator returns an allocator context for the browser whose
// DevTools endpoint is rawURL, as chromedp's remote.NewAllocator does: a
// ws:// or wss:// URL, query string included (?token=...), as browser
// pools hand out, or an http://host:port endpoint, resolved through its
// /json/version. Use it with chromedp.NewContext; each context opens a tab
// of that browser. The cancel func ends the allocator context, which
// closes the connection once its tabs are closed.
//
// The first chromedp.Run (or chromedp.Do) of a context made from it
// connects, and its context bounds the whole handshake: when it ends
// first, the socket is closed, so a pool that queued the request frees its
// slot. The error names the URL without its query string.
//
// The connection never panics, and says why it ended: a close frame (its
// code and text), bytes that are not a WebSocket frame (such as the
// "HTTP/1.1 408 Request Timeout" a pool writes into the socket at its
// session timeout) or not CDP JSON, and a reset end it with a
// [*ConnectionError] naming the reason, which every [Watcher] of the
// browser reports as [ErrBrowserGone], calls in flight included. chromedp's
// own transport hands a call in flight a bare context.Canceled instead.
//
// A connection that drops while the browser may live on (a reset, a
// socket closed without a close frame, a close frame saying the server
// goes away or restarts) is resumed: the same endpoint is dialed again
// for up to DefaultResume (ConnectOptions.Resume), and once the same
// browser answers, every tab is attached again by its target ID and sent
// the settings its session had. chromedp's contexts keep working, and
// each [Watcher] learns its tab again: one that crashed, closed or
// navigated meanwhile says so. A call the drop cut answers
// [ErrConnectionDropped], saying the connection was resumed: it may be
// sent again. A browser that does not come back answers [ErrBrowserGone]
// with the reason of the last try.
func NewRemoteAllocator(parent context.Context, rawURL string) (context.Context, context.CancelFunc) {
	return NewRemoteAllocatorWith(parent, rawURL, nil)
}

// ConnectOptions says how [NewRemoteAllocatorWith] reaches a browser.
type ConnectOptions struct {
	// Header goes with the /json/version request and the WebSocket
	// handshake, for a pool that takes its key in a header:
	// http.Header{"Authorization": {"Bearer " + key}}. No error quotes
	// it.
	Header http.Header
	// Resume is how long a dropped connection is dialed again while the
	// browser may live on; zero means DefaultResume, a negative value
	// never. See NewRemoteAllocator.
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

// NewRemoteAllocatorWith is [NewRemoteAllocator] with opts, which may be
// nil.
func NewRemoteAllocatorWith(parent context.Context, rawURL string, opts *ConnectOptions) (context.Context, context.CancelFunc) {
	a := &remoteAllocator{url: rawURL, resume: opts.resume()}
	if opts != nil {
		a.header = opts.Header.Clone()
	}
	ctx, cancel := chromedp.NewAllocatorContext(parent, a)
	return ctx, func() {
		cancel()
		a.Wait()
	}
}

// remoteAllocator is a chromedp.Allocator that dials with internal/cdpws.
type remoteAllocator struct {
	url    string
	header http.Header
	resume time.Duration
	wg     sync.WaitGroup
}

// resumers holds, for each browser a remoteAllocator allocated, how a
// BrowserWatcher's engine follows the drops and resumes of its
// connection: a func that subscribes it and returns the unsubscribe. Kept
// here, the code of a resume is linked into a program only with the
// allocator.
var resumers sync.Map // *chromedp.Browser → func(*engine.Browser) func()

// resumerOf is how an engine follows b's connection, or nil.
func resumerOf(b *chromedp.Browser) func(*engine.Browser) func() {
	f, _ := resumers.Load(b)
	follow, _ := f.(func(*engine.Browser) func())
	return follow
}

var (
	_ chromedp.Allocator = (*remoteAllocator)(nil)
	_ chromedp.Attacher  = (*remoteAllocator)(nil)
)

// Allocate connects to the browser within ctx, the context of the first
// Run, whose end also ends the connection.
func (a *remoteAllocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	if chromedp.FromContext(ctx) == nil {
		return nil, chromedp.ErrInvalidContext
	}
	wsURL, err := cdpws.ResolveURL(ctx, a.url, a.header)
	if err != nil {
		return nil, err
	}
	conn, err := cdpws.NewResumer(ctx, wsURL, a.header, cdpws.ResumeOptions{Window: a.resume})
	if err != nil {
		return nil, err
	}
	// The connection gets a context of its own, so the tabs can close
	// before it does, as in chromedp's remote allocator.
	wctx, cancel := context.WithCancel(context.Background())
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		<-ctx.Done()
		_ = chromedp.Cancel(ctx) // waits until the tabs of the first context are closed
		cancel()
	}()
	b, err := chromedp.NewBrowserTransport(wctx, transport{conn}, opts...)
	if err != nil {
		cancel()
		_ = conn.Close()
		return nil, fmt.Errorf("connect to the browser: %w", err)
	}
	resumers.Store(b, func(eng *engine.Browser) func() {
		return conn.Subscribe(cdpws.ResumeHooks{
			Dropped: eng.Dropped,
			Resumed: func(rs cdpws.Resume) { eng.Resumed(rs.Took) },
		})
	})
	context.AfterFunc(wctx, func() { resumers.Delete(b) })
	return b, nil
}

// Wait waits for the connections' goroutines to end.
func (a *remoteAllocator) Wait() { a.wg.Wait() }

// Attaches reports true: the browser runs already, so every
// chromedp.NewContext of the allocator opens a tab of it.
func (a *remoteAllocator) Attaches() bool { return true }

// transport puts chromedp's browser on a cdpws connection, whose reader
// hands it nothing but CDP JSON.
type transport struct{ conn *cdpws.Resumer }

// Read reads the next message, or the error that ended the connection.
func (t transport) Read(_ context.Context, msg *cdproto.Message) error {
	data, err := t.conn.ReadText()
	if err != nil {
		return err
	}
	if err := jsonv2.Unmarshal(data, msg, chromedp.DefaultUnmarshalOptions); err != nil {
		cerr := &ConnectionError{Reason: "a message that is not a CDP message: " + err.Error(), Err: err}
		_ = t.conn.Close()
		return cerr
	}
	return nil
}

// Write sends one message as one text frame: Chrome does not take
// fragmented messages.
func (t transport) Write(_ context.Context, msg *cdproto.Message) error {
	data, err := jsonv2.Marshal(msg, chromedp.DefaultMarshalOptions)
	if err != nil {
		return err
	}
	return t.conn.WriteText(data)
}

// Close ends the connection.
func (t transport) Close() error { return t.conn.Close() }
