package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tabguard/tabguard/tabstate"
	"github.com/tabguard/tabguard/tabtrace"
)

// FrameAttacher is a [Driver] that reaches an out-of-process iframe: a
// frame that runs in a renderer process of its own, whose target has the
// frame's ID. AttachFrame attaches to the target, within ctx, and returns
// a Session on it that lives until detach is called (or the target goes).
// A driver without it reaches in-process frames only.
type FrameAttacher interface {
	AttachFrame(ctx context.Context, targetID string) (s Session, detach func(), err error)
}

// FrameInfo is one iframe of a tab, as Frames lists it.
type FrameInfo = tabstate.FrameInfo

// reach is how the Tab reaches one frame's current document: the
// remote object of an in-process frame's document, whose execution
// context is the frame's, or the session of an out-of-process one.
type reach struct {
	doc     uint64 // the frame's document it was made for (FrameDocument)
	object  string
	session Session
	detach  func()
}

// Frames lists the tab's iframes, from its events. A tab watched after its
// page loaded has its frames learned once, by asking the browser
// (Page.getFrameTree and Target.getTargets); every other list makes no
// CDP call.
func (t *Tab) Frames() []FrameInfo {
	t.learnFrames()
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.tab.Frames()
	if len(fs) == 0 {
		return nil
	}
	out := make([]FrameInfo, len(fs))
	for i, f := range fs {
		out[i] = FrameInfo{ID: f.ID, ParentID: f.ParentID, URL: f.URL, OutOfProcess: f.OutOfProcess,
			Loading: !f.Committed && tabstate.FrameBlocked(f) == nil, Refusal: t.frameRefusal(f.ID)}
	}
	return out
}

// frameRefusal is the refusal of a call in frame id now: the tab's own,
// then the frame's. t.mu must be held.
func (t *Tab) frameRefusal(id string) error {
	if err := t.refusal(); err != nil {
		return err
	}
	f, ok := t.tab.Frame(id)
	if !ok {
		return refusal(t.b.cfg.Advice, tabstate.FrameGone(id))
	}
	return refusal(t.b.cfg.Advice, tabstate.FrameBlocked(f))
}

// cutFrames cuts short the calls in flight in a frame that crashed, went,
// moved to another process or holds another document since they were
// admitted. t.mu must be held.
func (t *Tab) cutFrames() {
	for call := range t.inflight {
		if call.frame == "" {
			continue
		}
		err := t.frameRefusal(call.frame)
		if err == nil && call.frameDoc != 0 && t.tab.FrameDocument(call.frame) != call.frameDoc {
			err = t.frameMoved(call)
		}
		if err != nil {
			call.cut(err)
			delete(t.inflight, call)
		}
	}
	for id, r := range t.reaches {
		if t.tab.FrameDocument(id) != r.doc {
			t.dropReach(id, r)
		}
	}
}

// frameMoved is the error of a call whose frame holds another document
// now: it moved to another process, or it navigated. t.mu must be held.
func (t *Tab) frameMoved(call *inflight) error {
	f, _ := t.tab.Frame(call.frame)
	if f.OutOfProcess && !call.frameOOP {
		return refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrFrameDetached, Frame: f.ID, URL: f.URL,
			Detail: "it moved to a process of its own during the call"})
	}
	return refusal(t.b.cfg.Advice, &tabstate.BlockedError{Reason: tabstate.ErrNavigated, Frame: f.ID, URL: f.URL})
}

// dropReach forgets how frame id was reached. t.mu must be held.
func (t *Tab) dropReach(id string, r *reach) {
	delete(t.reaches, id)
	if r.detach != nil {
		t.detaches = append(t.detaches, r.detach)
	}
}

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
	case fn == "":
		return nil, fmt.Errorf("%w: empty script: pass a function such as `() => document.title`", tabstate.ErrInvalidArgument)
	}
	t.learnFrames()
	var res frameResult
	err := t.inFrame(ctx, op, id, func(ctx context.Context, r *reach) error {
		if r.session != nil {
			return r.session.Call(ctx, "Runtime.evaluate", evaluateParams{Expression: callExpression(fn, args), ReturnByValue: true, AwaitPromise: true}, &res)
		}
		return t.s.Call(ctx, "Runtime.callFunctionOn", callOnParams{ObjectID: r.object, FunctionDeclaration: onGlobal(fn),
			Arguments: values(args), ReturnByValue: true, AwaitPromise: true}, &res)
	})
	switch {
	case err != nil:
		return nil, err
	case res.ExceptionDetails != nil:
		if t.b.cfg.Exception != nil {
			return nil, t.b.cfg.Exception(res.ExceptionDetails)
		}
		return nil, fmt.Errorf("script threw: %s", res.ExceptionDetails)
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
	r, err := t.reachFrame(cctx, call)
	if err == nil {
		err = fn(cctx, r)
	}
	late := timedOut(ctx, cctx, err)
	t.end(call, late)
	switch {
	case err == nil:
		return nil
	case late && call.waiting:
		return t.frameTimeout(call, op)
	case late:
		te := t.timedOut(&call.clock, op)
		t.logf("tabguard: frame eval timed out", te)
		return te
	}
	if err = t.settle(ctx, cctx, err); isRefusal(err) || ctxError(err) {
		return t.explain(err)
	}
	return t.explain(t.frameError(call, err))
}

// frameTimeout is the timeout of a call that waited for its frame's first
// document to the end.
func (t *Tab) frameTimeout(call *inflight, op string) error {
	t.mu.Lock()
	f, _ := t.tab.Frame(call.frame)
	t.mu.Unlock()
	te := &tabstate.TimeoutError{Op: op, Limit: call.clock.limit, Cause: tabstate.TimeoutLoading, Frame: call.frame,
		Doing:  "frame " + call.frame + " never loaded a document: a lazy iframe out of view, or one that was never given a page",
		Advice: "scroll the iframe into view with Watcher.Eval, or read the frames that loaded (Watcher.Frames)"}
	remedy := ""
	if a := t.b.cfg.Advice; a != nil {
		remedy = a.FrameLazy
	}
	if f.URL != "" {
		te.Doing = "frame " + call.frame + " still loading " + f.URL + ": its server never answered"
		te.Advice = "read the frames that loaded (Watcher.Frames)"
		if a := t.b.cfg.Advice; a != nil {
			remedy = a.FrameLoading
		}
	}
	if remedy != "" {
		te.Advice = remedy
	}
	return te
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
	t.await(t.life, eventGrace, func() bool {
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

// reachFrame waits, within ctx, for call's frame to hold a document of its
// own, and returns how to reach it.
func (t *Tab) reachFrame(ctx context.Context, call *inflight) (*reach, error) {
	for {
		t.mu.Lock()
		err := t.frameRefusal(call.frame)
		f, _ := t.tab.Frame(call.frame)
		doc := t.tab.FrameDocument(call.frame)
		r := t.reaches[call.frame]
		changed := t.changed
		// An out-of-process frame is there once its target has a URL; no
		// navigation started in an in-process one means a lazy iframe, or
		// one with no page, whose empty document is all it will hold.
		blank := !f.OutOfProcess && !f.Committed && f.URL == ""
		call.frameDoc, call.frameOOP = 0, f.OutOfProcess
		if err == nil && (f.Committed || blank) {
			call.frameDoc = doc
		}
		t.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case r != nil && r.doc == doc:
			return r, nil
		case f.OutOfProcess && f.Committed:
			return t.attachFrame(ctx, call)
		case f.Committed:
			return t.resolveFrame(ctx, call, false)
		case blank:
			if r, err := t.resolveFrame(ctx, call, true); r != nil || err != nil {
				return r, err
			}
			t.mu.Lock()
			call.frameDoc = 0 // its iframe asks for a page: wait for it
			t.mu.Unlock()
		}
		call.waiting = true
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// resolveFrame finds the remote object of an in-process frame's document,
// whose execution context is the frame's page world. blank says the frame
// never started a navigation: its empty document is taken only when its
// iframe asks for no page (no src), and nil, nil is returned otherwise.
func (t *Tab) resolveFrame(ctx context.Context, call *inflight, blank bool) (*reach, error) {
	var owner struct {
		BackendNodeID int64 `json:"backendNodeId"`
	}
	if err := t.s.Call(ctx, "DOM.getFrameOwner", frameParams{FrameID: call.frame}, &owner); err != nil {
		return nil, err
	}
	var node struct {
		Node struct {
			Attributes      []string `json:"attributes"`
			ContentDocument *struct {
				BackendNodeID int64 `json:"backendNodeId"`
			} `json:"contentDocument"`
		} `json:"node"`
	}
	if err := t.s.Call(ctx, "DOM.describeNode", nodeParams{BackendNodeID: owner.BackendNodeID}, &node); err != nil {
		return nil, err
	}
	if blank && asksForPage(node.Node.Attributes) {
		return nil, nil
	}
	if node.Node.ContentDocument == nil {
		// Chrome gives none for a frame that moved out of process.
		return nil, &tabstate.BlockedError{Reason: tabstate.ErrFrameDetached, Frame: call.frame,
			Detail: "it moved to a process of its own"}
	}
	var obj struct {
		Object struct {
			ObjectID string `json:"objectId"`
		} `json:"object"`
	}
	if err := t.s.Call(ctx, "DOM.resolveNode", resolveParams{BackendNodeID: node.Node.ContentDocument.BackendNodeID, ObjectGroup: objectGroup}, &obj); err != nil {
		return nil, err
	}
	return t.keep(call, &reach{object: obj.Object.ObjectID}), nil
}

// objectGroup holds the remote objects of the frames' documents.
const objectGroup = "tabguard-frames"

// asksForPage reports whether an iframe's attributes ask for a page: a src
// other than about:blank, or a srcdoc.
func asksForPage(attrs []string) bool {
	for i := 0; i+1 < len(attrs); i += 2 {
		switch v := strings.TrimSpace(attrs[i+1]); attrs[i] {
		case "src":
			if v != "" && v != "about:blank" {
				return true
			}
		case "srcdoc":
			return true
		}
	}
	return false
}

// attachFrame attaches to an out-of-process frame's target.
func (t *Tab) attachFrame(ctx context.Context, call *inflight) (*reach, error) {
	fa, ok := t.b.d.(FrameAttacher)
	if !ok {
		return nil, &tabstate.BlockedError{Reason: tabstate.ErrFrameDetached, Frame: call.frame,
			Detail: "it runs in a process of its own, which this backend does not reach"}
	}
	s, detach, err := fa.AttachFrame(ctx, call.frame)
	if err != nil {
		return nil, err
	}
	return t.keep(call, &reach{session: s, detach: detach}), nil
}

// keep caches r for call's frame, unless the frame holds another document
// by now; it returns r either way, for the call to use.
func (t *Tab) keep(call *inflight, r *reach) *reach {
	r.doc = call.frameDoc
	t.mu.Lock()
	closed := t.closed
	switch {
	case closed:
	case t.tab.FrameDocument(call.frame) != r.doc:
		if r.detach != nil {
			t.detaches = append(t.detaches, r.detach)
		}
	default:
		if old := t.reaches[call.frame]; old != nil {
			t.dropReach(call.frame, old)
		}
		if t.reaches == nil {
			t.reaches = map[string]*reach{}
		}
		t.reaches[call.frame] = r
	}
	t.mu.Unlock()
	if closed && r.detach != nil {
		r.detach() // Close has ended the others
	}
	return r
}

// detachFrames ends the sessions of frames the Tab no longer reaches; the
// detaches are made outside t.mu, bounded by probeTimeout.
func (t *Tab) detachFrames(all bool) {
	t.mu.Lock()
	ds := t.detaches
	t.detaches = nil
	if all {
		for id, r := range t.reaches {
			t.dropReach(id, r)
		}
		ds, t.detaches = append(ds, t.detaches...), nil
	}
	t.mu.Unlock()
	for _, d := range ds {
		d()
	}
}

// learnFrames learns the frames of a tab whose page was loaded before it
// was watched, once; a tab watched before its page committed knows them
// from its events. Frame news while it asks makes it ask again, up to
// learnTries times in all.
func (t *Tab) learnFrames() {
	for try := 0; try < learnTries; try++ {
		t.mu.Lock()
		known, seq := t.framesKnown, t.tab.FrameNews()
		t.framesKnown = true
		t.mu.Unlock()
		if known || t.learnFramesOnce(seq) {
			return
		}
	}
}

// learnTries bounds the asks of learnFrames.
const learnTries = 3

// learnFramesOnce asks the browser for the tab's frames and records them
// unless frame news arrived since seq; it reports whether they were
// recorded, and leaves the frames to learn otherwise.
func (t *Tab) learnFramesOnce(seq uint64) bool {
	ctx, cancel := context.WithTimeout(t.life, probeTimeout)
	defer cancel()
	var (
		tree    frameTreeResult
		targets targetsResult
	)
	errs := together(
		func() error { return t.s.Call(ctx, "Page.getFrameTree", nil, &tree) },
		func() error { return t.b.d.Call(ctx, "Target.getTargets", nil, &targets) },
	)
	var frames []tabstate.Frame
	var walk func(n frameTree)
	walk = func(n frameTree) {
		for _, c := range n.ChildFrames {
			// A frame still in Chrome's initial empty document (a lazy
			// iframe out of view, a load not answered yet) has no URL in
			// the tree: it is waited for, as one the events told of.
			f := tabstate.Frame{ID: c.Frame.ID, ParentID: c.Frame.ParentID, URL: c.Frame.URL + c.Frame.URLFragment, Committed: c.Frame.URL != ""}
			if c.Frame.UnreachableURL != "" {
				f.URL, f.Committed, f.ErrorPage = c.Frame.UnreachableURL, false, true
			}
			frames = append(frames, f)
			walk(c)
		}
	}
	walk(tree.FrameTree)
	have := map[string]bool{tree.FrameTree.Frame.ID: true}
	for _, f := range frames {
		have[f.ID] = true
	}
	for _, i := range targets.TargetInfos {
		if i.Type == "iframe" && (i.ParentID == t.id || have[i.ParentFrameID]) && !have[i.TargetID] {
			frames = append(frames, tabstate.Frame{ID: i.TargetID, ParentID: i.ParentFrameID, URL: i.URL, Committed: i.URL != "", OutOfProcess: true})
		}
	}
	t.mu.Lock()
	learned := errs[0] == nil && errs[1] == nil && t.tab.FrameNews() == seq
	if learned {
		t.tab.LearnFrames(frames, seq)
		t.broadcast()
	} else {
		t.framesKnown = false
	}
	t.mu.Unlock()
	if learned {
		t.b.iframes(targets.TargetInfos)
	}
	return learned
}

// The CDP messages of frames, with the fields the engine uses.

type frameParams struct {
	FrameID string `json:"frameId"`
}

type nodeParams struct {
	BackendNodeID int64 `json:"backendNodeId"`
}

type resolveParams struct {
	BackendNodeID int64  `json:"backendNodeId"`
	ObjectGroup   string `json:"objectGroup,omitempty"`
}

type callOnParams struct {
	ObjectID            string    `json:"objectId"`
	FunctionDeclaration string    `json:"functionDeclaration"`
	Arguments           []callArg `json:"arguments,omitempty"`
	ReturnByValue       bool      `json:"returnByValue"`
	AwaitPromise        bool      `json:"awaitPromise"`
}

type callArg struct {
	Value json.RawMessage `json:"value"`
}

// frameResult is the result of an eval in a frame, its RemoteObject kept
// raw for the backend to type.
type frameResult struct {
	Result           json.RawMessage `json:"result"`
	ExceptionDetails json.RawMessage `json:"exceptionDetails,omitempty"`
}

type frameTree struct {
	Frame struct {
		ID             string `json:"id"`
		ParentID       string `json:"parentId"`
		URL            string `json:"url"`
		URLFragment    string `json:"urlFragment"`
		UnreachableURL string `json:"unreachableUrl"`
	} `json:"frame"`
	ChildFrames []frameTree `json:"childFrames"`
}

type frameTreeResult struct {
	FrameTree frameTree `json:"frameTree"`
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
