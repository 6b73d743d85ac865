package chromedpguard

import (
	"context"
	"encoding/json"
	"errors"

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
}

var (
	_ engine.Driver     = (*driver)(nil)
	_ engine.LossPoller = (*driver)(nil)
	_ engine.Session    = (*chromedp.Target)(nil)
)

// Call sends a command on the browser session.
func (d *driver) Call(ctx context.Context, method string, params, result any) error {
	return d.browser.Call(ctx, method, params, result)
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

// targetInfo is cdproto's target info as the engine reads it.
func targetInfo(i *target.Info) engine.TargetInfo {
	return engine.TargetInfo{TargetID: string(i.TargetID), Type: i.Type, Title: i.Title, URL: i.URL,
		Attached: i.Attached, OpenerID: string(i.OpenerID)}
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

// config is the engine's configuration of o; sink takes the changes.
// chromedp asks for the browser-wide target events only for the first
// tab of a browser it starts, so the engine asks again.
func (o *Options) config(sink engine.Sink) engine.Config {
	return engine.Config{
		EvalTimeout: o.EvalTimeout, Logger: o.Logger, TerminateOnTimeout: o.TerminateOnTimeout,
		Dialogs: o.Dialogs, Notice: o.DOMNotice, Heartbeat: o.Heartbeat, URLs: o.URLs,
		Exception: exception, Sink: sink, Advice: o.Advice, Trace: o.Trace, DiscoverTargets: true,
		Calls: engine.Calls{BringToFront: "page.BringToFront", SetWebLifecycleState: "page.SetWebLifecycleState",
			TerminateExecution: "runtime.TerminateExecution"},
	}
}
