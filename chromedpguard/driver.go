package chromedpguard

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/internal/engine"
)

// driver is chromedp as the engine drives it. chromedp hands a tab's
// events and the replies to its commands to one goroutine per tab, in the
// order Chrome sent them, and runs Listen funcs before it reads the next
// message; the browser session's events are applied by the goroutine that
// reads the socket. So a reply never overtakes the events Chrome sent
// before it, and the driver needs no barrier. But chromedp cancels every
// context of a browser whose connection dropped before a call can tell, so
// it is a LossPoller.
type driver struct {
	browser *chromedp.Browser
	// life is the BrowserWatcher's chromedp context of the browser, which
	// its Close ends: chromedp keeps a browser in a context, and a frame's
	// target is attached from a child of it (AttachFrame).
	life context.Context

	mu     sync.Mutex
	closed bool
	next   int
	frames map[int]context.CancelFunc // the frame contexts not yet detached
}

var (
	_ engine.Driver        = (*driver)(nil)
	_ engine.LossPoller    = (*driver)(nil)
	_ engine.FrameAttacher = (*driver)(nil)
	_ engine.LoadFailer    = (*driver)(nil)
	_ engine.Session       = (*chromedp.Target)(nil)
)

// Call sends a command on the browser session.
func (d *driver) Call(ctx context.Context, method string, params, result any) error {
	return d.browser.Call(ctx, method, params, result)
}

// LoadFailure reads chromedp's error for a navigation Chrome did not
// commit: a *chromedp.LoadError.
func (d *driver) LoadFailure(err error) (string, bool) {
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		return le.ErrorText, true
	}
	return "", false
}

// Classify says what a chromedp error means: Chrome's answer, a detached
// target, or a lost connection.
func (d *driver) Classify(err error) engine.Failure {
	var ce *cdproto.Error
	switch {
	case errors.As(err, &ce):
		return engine.Failure{Kind: engine.Protocol, Code: ce.Code, Message: ce.Message}
	case errors.Is(err, chromedp.ErrTargetDetached):
		return engine.Failure{Kind: engine.Detached}
	}
	var ee *chromedp.ExceptionError
	if errors.As(err, &ee) && ee.ExceptionDetails != nil {
		return engine.Failure{Kind: engine.Exception, Message: exceptionText(ee.ExceptionDetails)}
	}
	if reason, lost := cdpws.LostReason(err); lost {
		return engine.Failure{Kind: engine.Lost, Reason: reason}
	}
	return engine.Failure{}
}

// Lost reports whether chromedp has lost the connection to the browser:
// it closes Browser.LostConnection before it cancels the contexts that
// hang on the browser.
func (d *driver) Lost() bool {
	select {
	case <-d.browser.LostConnection:
		return true
	default:
		return false
	}
}

// AttachFrame attaches chromedp to an out-of-process iframe's target, as
// chromedp.WithTargetID documents, and returns the chromedp target, which
// sends on the frame's own session. chromedp binds a target's life to the
// context of its first Run, so that Run gets the frame's context, which has
// no deadline, and ctx bounds only the wait for it. The detach cancels the
// frame's context with WithDetachOnCancel: chromedp's default, to close the
// target, would close the whole tab, as Target.closeTarget on an iframe's
// target does.
func (d *driver) AttachFrame(ctx context.Context, targetID string) (engine.Session, func(), error) {
	fctx, cancel := chromedp.NewContext(d.life, chromedp.WithTargetID(target.ID(targetID)), chromedp.WithDetachOnCancel())
	detach := d.keep(cancel)
	type attached struct {
		t   *chromedp.Target
		err error
	}
	done := make(chan attached, 1)
	go func() {
		t, err := chromedp.Run(fctx, func(_ context.Context, t *chromedp.Target) (*chromedp.Target, error) { return t, nil })
		done <- attached{t, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			detach()
			return nil, nil, a.err
		}
		return a.t, detach, nil
	case <-ctx.Done():
		detach() // Run returns once the frame's context ends
		<-done
		return nil, nil, ctx.Err()
	}
}

// keep records cancel, which ends a frame's context, until the detach it
// returns or close calls it; after close it is called at once.
func (d *driver) keep(cancel context.CancelFunc) (detach func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		cancel()
		return func() {}
	}
	if d.frames == nil {
		d.frames = map[int]context.CancelFunc{}
	}
	d.next++
	id := d.next
	d.frames[id] = cancel
	return func() {
		d.mu.Lock()
		delete(d.frames, id)
		d.mu.Unlock()
		cancel() // waits for chromedp's detach, within its own timeout
	}
}

// close detaches every frame context the engine has not, such as one a
// call attached while its watcher closed, and waits for chromedp to end
// them.
func (d *driver) close() {
	d.mu.Lock()
	d.closed = true
	frames := d.frames
	d.frames = nil
	d.mu.Unlock()
	for _, cancel := range frames {
		cancel()
	}
}

// targetInfo is cdproto's target info as the engine reads it.
func targetInfo(i *target.Info) engine.TargetInfo {
	return engine.TargetInfo{TargetID: string(i.TargetID), Type: i.Type, Title: i.Title, URL: i.URL,
		Attached: i.Attached, OpenerID: string(i.OpenerID), ParentID: string(i.ParentID), ParentFrameID: string(i.ParentFrameID),
		BrowserContextID: string(i.BrowserContextID)}
}

// exception is a JavaScript exception in a script the engine ran, as
// chromedp reports one.
func exception(details json.RawMessage) error {
	var d runtime.ExceptionDetails
	if err := json.Unmarshal(details, &d); err != nil {
		return errors.New("script threw: " + string(details))
	}
	return &chromedp.ExceptionError{ExceptionDetails: &d}
}

// exceptionText is an exception's text and, when Chrome describes the
// thrown value, its description: "Uncaught TypeError: Failed to fetch".
func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception == nil || d.Exception.Description == "" {
		return d.Text
	}
	return d.Text + ": " + d.Exception.Description
}

// config is the engine's configuration of o; sink takes the changes.
// chromedp asks for the browser-wide target events only for the first
// tab of a browser it starts, so the engine asks again.
func (o *Options) config(sink engine.Sink) engine.Config {
	return engine.Config{
		EvalTimeout: o.EvalTimeout, Logger: o.Logger, TerminateOnTimeout: o.TerminateOnTimeout,
		Dialogs: o.Dialogs, Notice: o.DOMNotice, Heartbeat: o.Heartbeat, Patience: o.Patience, URLs: o.URLs, AskBeforeClose: o.AskBeforeClose,
		Exception: exception, Sink: sink, Advice: o.Advice, Trace: o.Trace, DiscoverTargets: true, DownloadDir: o.DownloadDir, Credentials: o.Credentials, InsecureHosts: o.InsecureHosts, Permissions: o.Permissions, FileChooser: o.FileChooser,
		MaxCapturePixels: o.MaxCapturePixels, PDFChunk: o.PDFChunk,
		Calls: engine.Calls{BringToFront: "page.BringToFront", SetWebLifecycleState: "page.SetWebLifecycleState"},
	}
}
