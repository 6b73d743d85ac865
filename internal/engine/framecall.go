package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// EvalFrame runs the JavaScript function fn with args (each JSON) in frame
// id, awaiting a promise it returns, under the guard of Do, and returns
// Chrome's RemoteObject of its result, by value, for the backend to type.
// The tab's refusals come first, then the frame's: gone (ErrFrameDetached),
// crashed (ErrFrameCrashed) or with no document (ErrNoDocument). A frame in
// its first load is waited for, within the deadline, and a timeout then
// says the frame never loaded; a call in flight is cut short when its
// frame crashes, goes, moves to another process or navigates.
func (t *Tab) EvalFrame(ctx context.Context, id, fn string, args []json.RawMessage) (json.RawMessage, error) {
	if !t.tracing(ctx) {
		return t.evalFrame(ctx, OpEvalFrame, id, fn, args)
	}
	ctx, rec := t.callStart(ctx, tabtrace.OpEvalFrame)
	res, err := t.evalFrame(ctx, OpEvalFrame, id, fn, args)
	t.callDone(ctx, rec, err)
	return res, err
}

// OpEvalFrame names EvalFrame in a timeout.
const OpEvalFrame = "frame eval"

// evalFrame is EvalFrame, naming op in a timeout.
func (t *Tab) evalFrame(ctx context.Context, op, id, fn string, args []json.RawMessage) (json.RawMessage, error) {
	fn = strings.Trim(fn, "\t\n\v\f\r ;")
	switch {
	case id == "":
		return nil, fmt.Errorf("%w: empty frame ID: pass one that Frames lists", tabstate.ErrInvalidArgument)
	case id == t.id:
		// Its main frame's ID is the tab's target ID, which Frames does
		// not list: not a detached frame, but the wrong call.
		return nil, fmt.Errorf("%w: frame %s is the tab's main frame: evaluate in it with Watcher.Eval, or leave the frame empty",
			tabstate.ErrInvalidArgument, id)
	case fn == "":
		return nil, fmt.Errorf("%w: empty script: pass a function such as `() => document.title`", tabstate.ErrInvalidArgument)
	}
	t.learnFrames()
	var res frameResult
	err := t.inFrame(ctx, op, id, func(ctx context.Context, r *reach) error {
		var err error
		if r.session != nil {
			err = r.session.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: callExpression(fn, args), ReturnByValue: true, AwaitPromise: true}, &res)
		} else {
			err = t.s.Call(ctx, "Runtime.callFunctionOn", callOnParams{ObjectID: r.object, FunctionDeclaration: onGlobal(fn),
				Arguments: values(args), ReturnByValue: true, AwaitPromise: true}, &res)
		}
		if err == nil && res.ExceptionDetails != nil {
			// An error of the call's, so a denial during it explains it.
			if t.b.cfg.Exception != nil {
				return t.b.cfg.Exception(res.ExceptionDetails)
			}
			return fmt.Errorf("script threw: %s", res.ExceptionDetails)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// frameValue is evalValue in frame id.
func (t *Tab) frameValue(ctx context.Context, op, id string, v any, fn string, args ...any) error {
	enc := make([]json.RawMessage, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("%w: arg %d: %w", tabstate.ErrInvalidArgument, i, err)
		}
		enc[i] = b
	}
	res, err := t.evalFrame(ctx, op, id, fn, enc)
	if err != nil {
		return err
	}
	var obj struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(res, &obj); err != nil {
		return fmt.Errorf("read DOM: the frame answered %.40q: %w", res, err)
	}
	if err := json.Unmarshal(obj.Value, v); err != nil {
		return fmt.Errorf("read DOM: the frame answered %.40q: %w", obj.Value, err)
	}
	return nil
}

// inFrame runs fn on frame id's current document under the guard of Do:
// the tab's and the frame's refusals, the deadline, and the cut-offs of
// the tab and of the frame.
func (t *Tab) inFrame(ctx context.Context, op, id string, fn func(ctx context.Context, r *reach) error) error {
	t.detachFrames(false)
	call, cctx, err := t.beginCall(ctx, op, &inflight{frame: id}, nil, true)
	if err != nil {
		return err
	}
	var why frameWhy
	r, err := t.reachFrame(cctx, call, &why)
	if err == nil {
		err = fn(cctx, r)
	}
	late := timedOut(ctx, cctx, err)
	t.end(call, late)
	switch {
	case err == nil:
		return t.chooserDuring(call)
	case late && call.waiting:
		return t.frameTimeout(call, op, &why)
	case late:
		te := t.timedOut(&call.clock, op)
		t.logf("tabguard: "+opName(op)+" in a frame timed out", te)
		return te
	}
	if err = t.settle(ctx, cctx, err); isRefusal(err) || ctxError(err) {
		return t.explain(err)
	}
	if denied := t.localNetworkDenied(ctx, call, err); denied != nil {
		return denied
	}
	return t.explain(t.frameError(call, err))
}

// frameError says what a driver error of a call in a frame means: the
// frame's or the tab's refusal, a frame that went (ErrFrameDetached) or
// navigated (ErrNavigated) under the call, which Chrome tells in several
// words, or the tab's own reading of it.
func (t *Tab) frameError(call *inflight, err error) error {
	f := t.b.classify(err)
	lostDoc := f.Kind == Detached || f.Kind == Protocol && (f.Code == -32001 || f.Code == -32000 && documentGone(f.Message))
	if !lostDoc {
		return t.classify(err)
	}
	// The events that explain it may trail the reply.
	var why error
	t.await(t.life, t.b.cfg.grace(), func() bool {
		why = t.frameRefusal(call.frame)
		if why == nil && t.tab.FrameDocument(call.frame) != call.frameDoc {
			why = t.frameMoved(call)
		}
		return why != nil
	})
	if why != nil {
		return why
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fr, _ := t.tab.Frame(call.frame)
	return refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrNavigated, Frame: call.frame, URL: fr.URL})
}

// documentGone reports Chrome's words for a call whose document, or the
// node or context it named, went away under it.
func documentGone(msg string) bool {
	switch msg {
	case "Execution context was destroyed.", "Cannot find context with specified id", "Inspected target navigated or closed",
		"Could not find object with given id", "Node with given id does not belong to the document",
		"No node with given id found", "Frame with the given id was not found.", "No frame for given id found",
		"Frame not found for the given frame id", "Document needs to be requested first", "Target crashed":
		return true
	}
	return strings.HasPrefix(msg, "Cannot find default execution context") || strings.HasPrefix(msg, "Session with given id not found")
}

// values is args as Runtime.callFunctionOn takes them.
func values(args []json.RawMessage) []callArg {
	out := make([]callArg, len(args))
	for i, a := range args {
		out[i] = callArg{Value: a}
	}
	return out
}

// callExpression is "(fn)(arg0,arg1)", args being JSON.
func callExpression(fn string, args []json.RawMessage) string {
	var b strings.Builder
	b.WriteByte('(')
	b.WriteString(fn)
	b.WriteString(")(")
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(a)
	}
	b.WriteByte(')')
	return b.String()
}

// onGlobal is the declaration, for Runtime.callFunctionOn on a frame's
// document, that calls fn with the frame's global object as this, as an
// eval in the page would.
func onGlobal(fn string) string {
	return "function(..._tabguardArgs){return (" + fn + ").apply(globalThis,_tabguardArgs)}"
}

// FrameArgs encodes EvalFrame's args as JSON. remote reports an arg that
// is one of the backend's remote objects, which belongs to the execution
// context it came from: it is an ErrInvalidArgument, as is an arg JSON
// cannot encode.
func FrameArgs(args []any, remote func(a any) bool) ([]json.RawMessage, error) {
	enc := make([]json.RawMessage, len(args))
	for i, a := range args {
		if remote(a) {
			return nil, fmt.Errorf("%w: arg %d: EvalFrame takes JSON values only", tabstate.ErrInvalidArgument, i)
		}
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("%w: arg %d: %w", tabstate.ErrInvalidArgument, i, err)
		}
		enc[i] = b
	}
	return enc, nil
}
