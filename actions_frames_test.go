package tabguard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// actionFrames serves "/" with a same-site iframe at "/inner" and, with
// cross, one of another site (localhost, the same server) pushed down the
// page by a margin, so that a frame's offset counts.
func actionFrames(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/inner" {
			fmt.Fprint(w, `<!doctype html><body style="margin:0"><div style="height:40px"></div>`+
				`<button id="t" onclick="window.clicked = (window.clicked || 0) + 1">Inner target</button></body>`)
			return
		}
		u, _ := url.Parse(srv.URL)
		fmt.Fprintf(w, `<!doctype html><body><div style="height:120px"></div>`+
			`<iframe id="same" src="/inner" style="width:300px;height:120px"></iframe>`+
			`<iframe id="cross" src="http://localhost:%s/inner" style="width:300px;height:120px;margin-left:50px"></iframe></body>`, u.Port())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestActInFrames: an action by a ref of the snapshot, or by a selector
// and a frame, lands in the iframe it names, in process and out of it:
// the press goes to the tab at the iframe's place in the page.
func TestActInFrames(t *testing.T) {
	t.Parallel()
	b := testbrowser.SharedIsolated(t)
	page := testbrowser.NewPage(t, b)
	srv := actionFrames(t)
	ctx := testbrowser.Context(t, 30*time.Second)
	require.NoError(t, page.Context(ctx).Navigate(srv.URL))
	require.NoError(t, page.Context(ctx).WaitLoad())
	w := watch(t, page, &tabguard.Options{EvalTimeout: 10 * time.Second})
	frames := waitFrames(t, w, 2)

	snap, err := w.Snapshot(ctx, tabguard.SnapshotOptions{})
	require.NoError(t, err)
	refs := map[string]string{}
	for _, e := range snap.Elements {
		if e.Name == "Inner target" {
			refs[e.Frame] = e.Ref
		}
	}
	require.Len(t, refs, 2, "a target in each iframe: %s", snap)
	for _, f := range frames {
		acted, err := w.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Ref: refs[f.ID]})
		require.NoError(t, err, "by ref, in %s (out of process: %v)", f.URL, f.OutOfProcess)
		assert.Equal(t, `<button id="t">`, acted.Received)
		_, err = w.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Selector: "#t", Frame: f.ID})
		require.NoError(t, err, "by selector, in %s", f.URL)
		res, err := w.EvalFrame(ctx, f.ID, `() => window.clicked`)
		require.NoError(t, err)
		assert.Equal(t, 2, res.Value.Int(), "clicks %s heard (out of process: %v)", f.URL, f.OutOfProcess)
	}
}

// waitFrames waits until the watcher knows n iframes with a document.
func waitFrames(t *testing.T, w *tabguard.Watcher, n int) []tabguard.FrameInfo {
	t.Helper()
	var frames []tabguard.FrameInfo
	eventually(t, fmt.Sprintf("%d iframes loaded", n), func() bool {
		frames = frames[:0]
		for _, f := range w.Frames() {
			if !f.Loading && f.Refusal == nil {
				frames = append(frames, f)
			}
		}
		return len(frames) == n
	})
	return frames
}

// TestActStaleRefs: a ref of an element the page rendered again, or of an
// earlier page, is refused at once as stale, naming the call that gives
// fresh refs; a fresh snapshot's ref acts.
func TestActStaleRefs(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, actionFrames(t))
	w := watch(t, page, &tabguard.Options{EvalTimeout: 10 * time.Second})
	ctx := testbrowser.Context(t, 30*time.Second)
	_, err := w.Eval(ctx, `() => { document.body.innerHTML = '<button id="b">Buy</button>' }`)
	require.NoError(t, err)
	ref := func() string {
		snap, err := w.Snapshot(ctx, tabguard.SnapshotOptions{})
		require.NoError(t, err)
		for _, e := range snap.Elements {
			if e.Name == "Buy" {
				return e.Ref
			}
		}
		t.Fatalf("no Buy button in %s", snap)
		return ""
	}
	old := ref()
	_, err = w.Eval(ctx, `() => { document.body.innerHTML = '<button id="b">Buy</button>' }`)
	require.NoError(t, err)
	_, err = w.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Ref: old})
	require.ErrorIs(t, err, tabguard.ErrStaleRef)
	assert.Regexp(t, `^element e\d+ was replaced \(the page rendered it again\): click on e\d+ not done: take fresh refs with Watcher.Snapshot$`, err.Error())

	fresh := ref()
	_, err = w.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Ref: fresh})
	require.NoError(t, err)

	require.NoError(t, w.Navigate(ctx, page.MustInfo().URL))
	_, err = w.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Ref: fresh})
	require.ErrorIs(t, err, tabguard.ErrStaleRef, "after a navigation")
	assert.Contains(t, err.Error(), "take fresh refs with Watcher.Snapshot")
}
