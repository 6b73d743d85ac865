package engine_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestEvalFrameTimeoutSaysWhy holds that a call that waited for its
// frame's first document to the deadline says why the frame holds none:
// from the events when they told of its navigation, or else from its
// iframe as the page holds it, read once before the deadline.
func TestEvalFrameTimeoutSaysWhy(t *testing.T) {
	const (
		pending  = "its request is still pending: its server never answered"
		readMore = "read the frames that loaded (Watcher.Frames)"
		below    = 30000 // px: far below the 600 px viewport
	)
	tests := []struct {
		name    string
		events  []enginetest.Event // after the iframe joins the page
		reach   []string           // the iframe's attributes as the call starts
		why     []string           // and as it asks why
		ownerOK bool               // DOM.getFrameOwner answers the asking
		top     float64            // the iframe's top in the viewport
		doing   string
		advice  string
		asks    int // DOM.getContentQuads sent
	}{
		{
			name:  "lazy, out of view",
			reach: []string{"loading", "lazy", "src", "/inner"}, why: []string{"loading", "lazy", "src", "/inner"}, ownerOK: true, top: below,
			doing:  "frame F1 never loaded a document: a lazy iframe out of view (loading=lazy) holds back its load of http://127.0.0.1:1/inner",
			advice: "scroll the iframe into view with Watcher.Eval, or " + readMore, asks: 1,
		},
		{
			name:  "lazy, in view",
			reach: []string{"loading", "lazy", "src", "/inner"}, why: []string{"loading", "lazy", "src", "/inner"}, ownerOK: true, top: 10,
			doing: "frame F1 still loading http://127.0.0.1:1/inner: " + pending, advice: readMore, asks: 1,
		},
		{
			// A tab watched after its load began: no navigation of the
			// frame was told of.
			name:  "server never answered, start not seen",
			reach: []string{"src", "http://127.0.0.1:2/stall"}, why: []string{"src", "http://127.0.0.1:2/stall"}, ownerOK: true,
			doing: "frame F1 still loading http://127.0.0.1:2/stall: " + pending, advice: readMore,
		},
		{
			name:   "server never answered, start seen",
			events: []enginetest.Event{enginetest.Page(sess, tabstate.NavigationStarted{FrameID: frame, LoaderID: "L1", URL: "http://127.0.0.1:1/stall"})},
			doing:  "frame F1 still loading http://127.0.0.1:1/stall: " + pending, advice: readMore,
		},
		{
			// The page's script took its src away while the call waited.
			name:  "no src",
			reach: []string{"src", "/inner"}, why: []string{"id", "e"}, ownerOK: true,
			doing:  "frame F1 never loaded a document: its iframe has no src, so it was never given a page",
			advice: "give it a page by setting its src with Watcher.Eval, or " + readMore,
		},
		{
			name:  "src about:blank",
			reach: []string{"src", "/inner"}, why: []string{"src", "about:blank"}, ownerOK: true,
			doing:  "frame F1 never loaded a document: its iframe has no src, so it was never given a page",
			advice: "give it a page by setting its src with Watcher.Eval, or " + readMore,
		},
		{
			name:  "src empty",
			reach: []string{"src", "/inner"}, why: []string{"src", ""}, ownerOK: true,
			doing:  "frame F1 never loaded a document: its iframe has no src, so it was never given a page",
			advice: "give it a page by setting its src with Watcher.Eval, or " + readMore,
		},
		{
			name:  "iframe unreadable",
			reach: []string{"src", "/inner"}, why: []string{"src", "/inner"},
			doing: "frame F1 never loaded a document", advice: readMore,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fx := setup(t, enginetest.EventsFirst, engine.Config{})
			fx.f.Push(append([]enginetest.Event{enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target})}, tt.events...)...)
			var owners, nodes atomic.Int32
			fx.f.Handle("DOM.getFrameOwner", func(string, json.RawMessage) enginetest.Reply {
				if owners.Add(1) > 1 && !tt.ownerOK {
					return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "Frame with the given id was not found."}}
				}
				return enginetest.Reply{Result: map[string]any{"backendNodeId": 5}}
			})
			fx.f.Handle("DOM.describeNode", func(string, json.RawMessage) enginetest.Reply {
				attrs := tt.why
				if nodes.Add(1) == 1 {
					attrs = tt.reach
				}
				return enginetest.Reply{Result: map[string]any{"node": map[string]any{"attributes": attrs, "contentDocument": map[string]any{"backendNodeId": 6}}}}
			})
			answer(fx.f, "DOM.resolveNode", map[string]any{"object": map[string]any{"objectId": "doc"}})
			answer(fx.f, "DOM.getContentQuads", map[string]any{"quads": [][]float64{{0, tt.top, 300, tt.top, 300, tt.top + 150, 0, tt.top + 150}}})
			answer(fx.f, "Page.getLayoutMetrics", map[string]any{
				"cssLayoutViewport": map[string]any{"clientWidth": 800, "clientHeight": 600},
				"cssVisualViewport": map[string]any{"offsetX": 0, "offsetY": 0}})

			ctx, cancel := context.WithTimeout(deadline(t), time.Second)
			defer cancel()
			_, err := fx.tab.EvalFrame(ctx, frame, `() => 1`, nil)
			var te *tabstate.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tabstate.TimeoutLoading, te.Cause)
			assert.Equal(t, frame, te.Frame)
			assert.Equal(t, tt.doing, te.Doing)
			assert.Equal(t, tt.advice, te.Advice)
			assert.Zero(t, fx.f.Count("Runtime.callFunctionOn"), "never the empty initial document")
			assert.Equal(t, tt.asks, fx.f.Count("DOM.getContentQuads"), "the view is asked of a lazy iframe, once")
			if tt.events != nil {
				assert.Zero(t, fx.f.Count("DOM.getFrameOwner"), "the events tell: the page is not asked")
			}
		})
	}
}

// TestEvalFrameTimeoutRemedy holds that a program's remedies replace the
// default advice: FrameLazy for a lazy iframe out of view, FrameLoading
// for a request its server never answered.
func TestEvalFrameTimeoutRemedy(t *testing.T) {
	advice := &tabstate.Advice{FrameLazy: "scroll it", FrameLoading: "list frames"}
	for _, tc := range []struct {
		name, src, want string
		lazy            bool
	}{{"lazy", "/inner", "scroll it", true}, {"loading", "/stall", "list frames", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fx := setup(t, enginetest.EventsFirst, engine.Config{Advice: advice})
			fx.f.Push(enginetest.Page(sess, tabstate.FrameAttached{FrameID: frame, ParentID: target}))
			attrs := []string{"src", tc.src}
			if tc.lazy {
				attrs = append(attrs, "loading", "lazy")
			}
			frameDocument(fx.f, attrs...)
			ctx, cancel := context.WithTimeout(deadline(t), time.Second)
			defer cancel()
			_, err := fx.tab.EvalFrame(ctx, frame, `() => 1`, nil)
			var te *tabstate.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tc.want, te.Advice, te.Doing)
		})
	}
}
