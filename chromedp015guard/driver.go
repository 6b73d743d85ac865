package chromedp015guard

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"
	"github.com/tabguard/tabguard/internal/cdpws"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/tabstate"
)

// chromedp's Execute took easyjson values until v0.12 and takes any value
// since v0.13, which it encodes with jsonv2. A value reads and writes
// itself as JSON both ways, so one call compiles, and means the same, on
// every release.
type value struct{ v any }

// MarshalEasyJSON writes the value for chromedp up to v0.12.
func (p *value) MarshalEasyJSON(w *jwriter.Writer) {
	b, err := json.Marshal(p.v)
	if err != nil {
		w.Error = err
		return
	}
	w.Raw(b, nil)
}

// UnmarshalEasyJSON reads the value for chromedp up to v0.12.
func (p *value) UnmarshalEasyJSON(l *jlexer.Lexer) {
	if err := json.Unmarshal(l.Raw(), p.v); err != nil {
		l.AddError(err)
	}
}

// MarshalJSON writes the value for chromedp v0.13 and newer.
func (p *value) MarshalJSON() ([]byte, error) { return json.Marshal(p.v) }

// UnmarshalJSON reads the value for chromedp v0.13 and newer.
func (p *value) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, p.v) }

// session sends commands on a tab's session (t) or the browser's (b).
type session struct {
	t *chromedp.Target
	b *chromedp.Browser
}

// Call sends method with params and decodes the answer into result.
func (s session) Call(ctx context.Context, method string, params, result any) error {
	var p, r *value
	if params != nil {
		p = &value{params}
	}
	if result != nil {
		r = &value{result}
	}
	return s.execute(ctx, method, p, r)
}

// driver is chromedp up to v0.15 as the engine drives it. Like chromedp
// v0.16 and newer, it hands a tab's events and replies to one goroutine in
// the order Chrome sent them, so no barrier is needed; it cancels every
// context of a lost browser before a call can tell, so it is a LossPoller.
type driver struct {
	session
	// life is the BrowserWatcher's chromedp context of the browser:
	// chromedp keeps a browser in a context, and a frame's target is
	// attached from one (attach.go).
	life context.Context

	mu     sync.Mutex
	closed bool
	next   int
	frames map[int]func() // the detaches of frames not yet detached
}

var (
	_ engine.Driver        = (*driver)(nil)
	_ engine.LossPoller    = (*driver)(nil)
	_ engine.FrameAttacher = (*driver)(nil)
	_ engine.LoadFailer    = (*driver)(nil)
)

// LoadFailure reads chromedp's error for a navigation Chrome did not
// commit, which these versions make with fmt.Errorf: "page load error
// net::ERR_ABORTED".
func (d *driver) LoadFailure(err error) (string, bool) {
	return strings.CutPrefix(err.Error(), "page load error ")
}

// Classify says what a chromedp error means: Chrome's answer, or a lost
// connection.
func (d *driver) Classify(err error) engine.Failure {
	var ce *cdproto.Error
	if errors.As(err, &ce) {
		return engine.Failure{Kind: engine.Protocol, Code: ce.Code, Message: ce.Message}
	}
	if errors.Is(err, chromedp.ErrChannelClosed) {
		return engine.Failure{Kind: engine.Lost}
	}
	var ed *runtime.ExceptionDetails
	if errors.As(err, &ed) {
		return engine.Failure{Kind: engine.Exception, Message: exceptionText(ed)}
	}
	if reason, lost := cdpws.LostReason(err); lost {
		return engine.Failure{Kind: engine.Lost, Reason: reason}
	}
	return engine.Failure{}
}

// Lost reports whether chromedp has lost the connection to the browser.
func (d *driver) Lost() bool {
	select {
	case <-d.b.LostConnection:
		return true
	default:
		return false
	}
}

// event turns a typed cdproto event, as chromedp's listeners get it, into
// the state machine's: its CDP method is read off its Go type
// (*page.EventFrameNavigated is Page.frameNavigated) and its params off its
// JSON, so an event that a release's cdproto lacks costs nothing, and
// every release reads the same.
func event(ev any) (method string, params []byte, ok bool) {
	name := reflect.TypeOf(ev).String() // "*page.EventFrameNavigated"
	dot := strings.Index(name, ".Event")
	if !strings.HasPrefix(name, "*") || dot < 0 {
		return "", nil, false
	}
	domain, evName := name[1:dot], name[dot+len(".Event"):]
	if domain == "" || evName == "" {
		return "", nil, false
	}
	method = strings.ToUpper(domain[:1]) + domain[1:] + "." + strings.ToLower(evName[:1]) + evName[1:]
	if !tabstate.Methods[method] && method != "Target.targetCreated" && method != "Target.targetInfoChanged" {
		return "", nil, false
	}
	params, err := json.Marshal(ev)
	return method, params, err == nil
}

// exception is a JavaScript exception in a script the engine ran, as
// Watcher.Eval reports one: a *runtime.ExceptionDetails.
func exception(details json.RawMessage) error {
	d := new(runtime.ExceptionDetails)
	if err := json.Unmarshal(details, d); err != nil {
		return errors.New("script threw: " + string(details))
	}
	return d
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
// chromedp asks for the browser-wide target events only for the first tab
// of a browser it starts, so the engine asks again.
func (o *Options) config(sink engine.Sink) engine.Config {
	return engine.Config{
		EvalTimeout: o.EvalTimeout, Logger: o.Logger, TerminateOnTimeout: o.TerminateOnTimeout,
		Dialogs: o.Dialogs, Notice: o.DOMNotice, Heartbeat: o.Heartbeat, Patience: o.Patience, URLs: o.URLs, AskBeforeClose: o.AskBeforeClose,
		Exception: exception, Sink: sink, DiscoverTargets: true, Advice: o.Advice, Trace: o.Trace, DownloadDir: o.DownloadDir, Credentials: o.Credentials, InsecureHosts: o.InsecureHosts, Permissions: o.Permissions, FileChooser: o.FileChooser,
		MaxCapturePixels: o.MaxCapturePixels, PDFChunk: o.PDFChunk,
		Calls: engine.Calls{BringToFront: "page.BringToFront", SetWebLifecycleState: "page.SetWebLifecycleState"},
	}
}
