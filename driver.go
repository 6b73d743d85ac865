package tabguard

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/internal/engine"
)

// driver is rod as the engine drives it: the browser session, what rod's
// errors mean, and the barrier that rod's event fan-out needs (sync.go).
type driver struct {
	browser *rod.Browser // bound to the BrowserWatcher's own context
	root    *rod.Browser // the program's, whose context ends with the browser
	markers markers

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // marker detaches
}

var (
	_ engine.Driver        = (*driver)(nil)
	_ engine.Syncer        = syncDriver{}
	_ engine.FrameAttacher = (*driver)(nil)
	_ engine.LoadFailer    = (*driver)(nil)
)

// syncDriver is the driver of a browser whose events come through rod's
// fan-out, where a reply can overtake the events Chrome sent before it:
// it syncs with a marker (sync.go).
type syncDriver struct{ *driver }

// Call sends a command on the browser session.
func (d *driver) Call(ctx context.Context, method string, params, result any) error {
	return call(ctx, d.browser, "", method, params, result)
}

// Classify says what a rod error means: Chrome's answer, or a lost
// connection (whatever transport rod runs on), or the end of the browser's
// context, which rod gives every call once the program closed it.
func (d *driver) Classify(err error) engine.Failure {
	var ce *cdp.Error
	if errors.As(err, &ce) {
		return engine.Failure{Kind: engine.Protocol, Code: int64(ce.Code), Message: ce.Message}
	}
	if d := exceptionDetails(err); d != nil {
		return engine.Failure{Kind: engine.Exception, Message: exceptionText(d.Text, d.Exception)}
	}
	if reason, lost := cdpws.LostReason(err); lost {
		return engine.Failure{Kind: engine.Lost, Reason: reason}
	}
	if errors.Is(err, context.Canceled) && d.root.GetContext().Err() != nil {
		return engine.Failure{Kind: engine.Lost, Reason: "the browser's context ended"}
	}
	return engine.Failure{}
}

// LoadFailure reads rod's error for a navigation Chrome did not commit,
// which Page.Navigate answers: a *rod.NavigationError (*rod.ErrNavigation
// before rod v0.114.8; its name changed, its shape did not).
func (d *driver) LoadFailure(err error) (string, bool) {
	for err != nil {
		if v := reflect.ValueOf(err); v.Kind() == reflect.Pointer && !v.IsNil() && rodNavigation(v.Type().Elem()) {
			return v.Elem().Field(0).String(), true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			break
		}
		err = u.Unwrap()
	}
	return "", false
}

// rodNavigation reports whether t is rod's navigation error: its struct
// with the one field Reason.
func rodNavigation(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == rodPackage && strings.Contains(t.Name(), "Navigation") &&
		t.NumField() == 1 && t.Field(0).Name == "Reason" && t.Field(0).Type.Kind() == reflect.String
}

// AttachFrame attaches to an out-of-process iframe's target on the
// browser's connection, flattened, so its session is called as a tab's is.
func (d *driver) AttachFrame(ctx context.Context, targetID string) (engine.Session, func(), error) {
	var res struct {
		SessionID string `json:"sessionId"`
	}
	err := call(ctx, d.browser, "", "Target.attachToTarget", struct {
		TargetID string `json:"targetId"`
		Flatten  bool   `json:"flatten"`
	}{targetID, true}, &res)
	if err != nil {
		return nil, nil, err
	}
	detach := func() {
		ctx, cancel := context.WithTimeout(d.browser.GetContext(), detachTimeout)
		defer cancel()
		_ = call(ctx, d.browser, "", "Target.detachFromTarget", struct {
			SessionID string `json:"sessionId"`
		}{res.SessionID}, nil)
	}
	return session{browser: d.browser, id: res.SessionID}, detach, nil
}

// detachTimeout bounds the detach of a frame's session.
const detachTimeout = time.Second

// close ends the driver's own calls: it waits for the marker detaches.
func (d *driver) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}

// session is one tab's session, on the connection of the page's browser.
type session struct {
	browser *rod.Browser
	id      string
}

// Call sends a command on the tab's session.
func (s session) Call(ctx context.Context, method string, params, result any) error {
	return call(ctx, s.browser, s.id, method, params, result)
}

// call sends method on session id of b and decodes the answer into result.
func call(ctx context.Context, b *rod.Browser, id, method string, params, result any) error {
	res, err := b.Call(ctx, id, method, params)
	if err != nil || result == nil {
		return err
	}
	return json.Unmarshal(res, result)
}

// targetInfo is rod's target info as the engine reads it.
func targetInfo(i *proto.TargetTargetInfo) engine.TargetInfo {
	return engine.TargetInfo{TargetID: string(i.TargetID), Type: string(i.Type), Title: i.Title, URL: i.URL,
		Attached: i.Attached, OpenerID: string(i.OpenerID), BrowserContextID: string(i.BrowserContextID)}
}

// exception is a JavaScript exception in a script the engine ran, as
// Watcher.Eval reports one.
func exception(details json.RawMessage) error {
	var d proto.RuntimeExceptionDetails
	if err := json.Unmarshal(details, &d); err != nil {
		return errors.New("script threw: " + string(details))
	}
	return &EvalError{RuntimeExceptionDetails: &d}
}

// exceptionText is an exception's text and, when Chrome describes the
// thrown value, its description: "Uncaught TypeError: Failed to fetch".
func exceptionText(text string, thrown *proto.RuntimeRemoteObject) string {
	if thrown == nil || thrown.Description == "" {
		return text
	}
	return text + ": " + thrown.Description
}

// config is the engine's configuration of o; sink takes the changes.
func (o *Options) config(sink engine.Sink) engine.Config {
	return engine.Config{
		EvalTimeout: o.EvalTimeout, Logger: o.Logger, TerminateOnTimeout: o.TerminateOnTimeout,
		Dialogs: o.Dialogs, Notice: o.DOMNotice, Heartbeat: o.Heartbeat, Patience: o.Patience, URLs: o.URLs, AskBeforeClose: o.AskBeforeClose,
		Exception: exception, Sink: sink, Advice: o.Advice, Trace: o.Trace, DownloadDir: o.DownloadDir, Credentials: o.Credentials, InsecureHosts: o.InsecureHosts, Permissions: o.Permissions, FileChooser: o.FileChooser,
		MaxCapturePixels: o.MaxCapturePixels, PDFChunk: o.PDFChunk, Console: o.Console,
		Calls: engine.Calls{BringToFront: "proto.PageBringToFront", SetWebLifecycleState: "proto.PageSetWebLifecycleState"},
	}
}
