package tabguard_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/pagejs"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// snapForm is a page with one element of each kind a snapshot lists, and
// some it leaves out.
const snapForm = `<!doctype html><title>shop</title>
<nav aria-label="Main"><a href="/home">Home</a> <a href="/cart" title="Your cart"><img src="data:," alt="Cart"></a></nav>
<h1>Checkout</h1>
<label>Email <input id=email value="a@b.example"></label>
<label for=pw>Password</label><input id=pw type=password value="secret">
<input type=checkbox id=terms checked><label for=terms>I agree</label>
<input type=checkbox id=mix aria-label="Some">
<select aria-label="Size"><option>S<option selected>M</select>
<textarea placeholder="Notes"></textarea>
<button disabled>Buy   now</button>
<div role=button aria-expanded=false tabindex=0>Menu</div>
<div onclick="1">Clickable div</div>
<div contenteditable>Edit me</div>
<details><summary>More</summary><a href=/x>inside closed details</a></details>
<div style="display:none"><button>hidden</button></div>
<div style="visibility:hidden"><button>invisible</button></div>
<div role=presentation>not listed</div>
<div style="height:3000px"></div>
<a href="/far">Far below</a>
<script>document.getElementById("mix").indeterminate = true; document.getElementById("email").focus();</script>`

// snapFormWant is snapForm's snapshot.
const snapFormWant = `e1 navigation "Main"
e2 link "Home"
e3 link "Cart"
e4 img "Cart"
e5 heading "Checkout"
e6 textbox "Email" value="a@b.example" [focused]
e7 textbox "Password"
e8 checkbox "I agree" [checked]
e9 checkbox "Some" [checked=mixed]
e10 combobox "Size" value="M"
e11 textbox "Notes"
e12 button "Buy now" [disabled]
e13 button "Menu" [expanded=false]
e14 div "Clickable div"
e15 textbox value="Edit me"
e16 button "More" [expanded=false]
e17 link "Far below" [offscreen]
`

// serveSnap starts a 127.0.0.1 server of the snapshot tests' pages:
// "/form" (snapForm) and faultrows.SnapshotServer's.
func serveSnap(t testing.TB) *httptest.Server {
	t.Helper()
	return faultrows.SnapshotServer(t, map[string]string{"/form": snapForm})
}

// load navigates w's tab to url and waits for its load event.
func load(t testing.TB, w *tabguard.Watcher, url string) {
	t.Helper()
	ctx := testbrowser.Context(t, 20*time.Second)
	require.NoError(t, w.Navigate(ctx, url))
	_, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
}

// snapshot takes a snapshot within 20 s.
func snapshot(t testing.TB, w *tabguard.Watcher, opts tabguard.SnapshotOptions) tabguard.Snapshot {
	t.Helper()
	s, err := w.Snapshot(testbrowser.Context(t, 20*time.Second), opts)
	require.NoError(t, err)
	return s
}

func TestSnapshotElements(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := watch(t, testbrowser.Page(t), nil)
	load(t, w, srv.URL+"/form")
	s := snapshot(t, w, tabguard.SnapshotOptions{})
	if diff := cmp.Diff(snapFormWant, s.String()); diff != "" {
		t.Errorf("Snapshot() mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, 17, s.Total)
	assert.Zero(t, s.NextOffset)
	assert.Empty(t, s.Notice())
	for _, e := range s.Elements {
		assert.Empty(t, e.Frame, "%s is in the main frame", e.Ref)
		assert.False(t, e.W == 0 || e.H == 0, "%s has a box: %+v", e.Ref, e)
		assert.NotContains(t, e.Value, "secret", "a password is never listed")
	}

	scoped := snapshot(t, w, tabguard.SnapshotOptions{Selector: "nav"})
	assert.Equal(t, "e1 navigation \"Main\"\ne2 link \"Home\"\ne3 link \"Cart\"\ne4 img \"Cart\"\n", scoped.String(),
		"a selector scopes the walk; refs stay")

	_, err := w.Snapshot(testbrowser.Context(t, 20*time.Second), tabguard.SnapshotOptions{Selector: "#none"})
	assert.ErrorIs(t, err, tabguard.ErrNoMatch)
	_, err = w.Snapshot(testbrowser.Context(t, 20*time.Second), tabguard.SnapshotOptions{Selector: "[["})
	assert.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	for _, bad := range []tabguard.SnapshotOptions{{MaxElements: -1}, {MaxBytes: -1}, {MaxBytes: 100}, {Offset: -1}} {
		_, err = w.Snapshot(testbrowser.Context(t, 20*time.Second), bad)
		assert.ErrorIs(t, err, tabguard.ErrInvalidArgument, "%+v", bad)
	}
}

// TestSnapshotCaps: a page of 5,000 links, ten times the element cap, answers at most the caps, and
// says how many there are and how to read on.
func TestSnapshotCaps(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := watch(t, testbrowser.Page(t), &tabguard.Options{EvalTimeout: 30 * time.Second})
	load(t, w, srv.URL+"/links?n=5000")

	s := snapshot(t, w, tabguard.SnapshotOptions{})
	assert.Equal(t, tabguard.DefaultSnapshotElements, s.Shown)
	assert.Len(t, s.Elements, s.Shown)
	assert.Equal(t, 5000, s.Total)
	assert.Equal(t, 500, s.NextOffset)
	assert.Equal(t, "showing 500 of 5000 elements: read on with Offset 500", s.Notice())
	assert.True(t, strings.HasSuffix(s.String(), "\n"+s.Notice()+"\n"), "the notice ends the text")
	assert.LessOrEqual(t, len(s.String()), tabguard.DefaultSnapshotBytes)
	assert.Equal(t, `e500 link "Item 499" [offscreen]`, s.Elements[499].String())

	// The byte cap cuts a window the element cap would not.
	s = snapshot(t, w, tabguard.SnapshotOptions{MaxElements: 5000, MaxBytes: 4096, Offset: 1000})
	assert.LessOrEqual(t, len(s.String()), 4096)
	assert.Greater(t, s.Shown, 50)
	assert.Less(t, s.Shown, 500)
	assert.Equal(t, 1000+s.Shown, s.NextOffset)
	assert.Equal(t, `link "Item 1000" [offscreen]`, strings.SplitN(s.Elements[0].String(), " ", 2)[1])
	assert.Contains(t, s.String(), fmt.Sprintf("showing %d of 5000 elements from Offset 1000: read on with Offset %d", s.Shown, s.NextOffset))

	s = snapshot(t, w, tabguard.SnapshotOptions{Offset: 4990})
	assert.Equal(t, 10, s.Shown, "the last window")
	assert.Zero(t, s.NextOffset)
	assert.Empty(t, s.Notice())
	s = snapshot(t, w, tabguard.SnapshotOptions{Offset: 6000})
	assert.Zero(t, s.Shown, "past the end")
	assert.Equal(t, 5000, s.Total)
}

// TestSnapshotWindows: windows read on by NextOffset join exactly, with
// the refs one snapshot of the whole gives.
func TestSnapshotWindows(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := watch(t, testbrowser.Page(t), nil)
	load(t, w, srv.URL+"/links?n=1234")

	var joined []string
	windows := 0
	for offset := 0; ; windows++ {
		require.Less(t, windows, 10, "windows never reach the end")
		s := snapshot(t, w, tabguard.SnapshotOptions{MaxElements: 300, Offset: offset})
		require.Equal(t, offset, s.Offset)
		for _, e := range s.Elements {
			joined = append(joined, e.String())
		}
		if s.NextOffset == 0 {
			break
		}
		offset = s.NextOffset
	}
	assert.Equal(t, 4, windows, "300 + 300 + 300 + 300 + 34")
	whole := snapshot(t, w, tabguard.SnapshotOptions{MaxElements: 2000})
	require.Equal(t, 1234, whole.Shown)
	var want []string
	for _, e := range whole.Elements {
		want = append(want, e.String())
	}
	if diff := cmp.Diff(want, joined); diff != "" {
		t.Errorf("windows joined mismatch (-whole +joined):\n%s", diff)
	}
	assert.Equal(t, `e1234 link "Item 1233" [offscreen]`, want[1233], "each element has its own ref, in document order")
}

// TestSnapshotRefs: an element keeps its ref across snapshots of its
// document; one added gets a new ref, and a ref of an element removed is
// replaced. After a navigation every earlier ref is gone, even where the
// new document numbers its own.
func TestSnapshotRefs(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := watch(t, testbrowser.Page(t), nil)
	load(t, w, srv.URL+"/form")
	ctx := testbrowser.Context(t, 20*time.Second)
	first := snapshot(t, w, tabguard.SnapshotOptions{})
	_, err := w.Eval(ctx, `() => { document.body.prepend(Object.assign(document.createElement("button"), {textContent: "New"})); document.querySelector("h1").remove() }`)
	require.NoError(t, err)
	second := snapshot(t, w, tabguard.SnapshotOptions{})
	refs := map[string]string{}
	for _, e := range second.Elements {
		refs[e.Role+" "+e.Name] = e.Ref
	}
	assert.Equal(t, "e18", refs["button New"], "a new element, a new ref")
	assert.Len(t, refs, len(second.Elements))
	for _, e := range first.Elements {
		if e.Name != "Checkout" {
			assert.Equal(t, e.Ref, refs[e.Role+" "+e.Name], "%s %q keeps its ref", e.Role, e.Name)
		}
	}
	assert.Equal(t, "el", findRef(t, w, "e2"))
	assert.Equal(t, "replaced", findRef(t, w, "e5"), "the heading was removed")
	assert.Equal(t, "gone", findRef(t, w, "e99"))

	load(t, w, srv.URL+"/form")
	assert.Equal(t, "gone", findRef(t, w, "e2"), "a ref of the earlier document")
	again := snapshot(t, w, tabguard.SnapshotOptions{})
	assert.Equal(t, "e19", again.Elements[0].Ref, "a new document numbers past every earlier ref")
	assert.Equal(t, "gone", findRef(t, w, "e2"), "and never gives an earlier ref again")
}

// findRef says what pagejs.FindRef finds for ref in the main frame: "el",
// "gone" or "replaced".
func findRef(t testing.TB, w *tabguard.Watcher, ref string) string {
	t.Helper()
	res, err := w.Eval(testbrowser.Context(t, 20*time.Second), `(ref) => { const r = (`+pagejs.FindRef+`)(ref); return r.el ? "el" : r.gone ? "gone" : "replaced" }`, ref)
	require.NoError(t, err)
	return res.Value.Str()
}

// TestSnapshotFrames lists the elements of an iframe of the same site and
// of one of another site, in its own process with site isolation on:
// their refs name their frames, and go stale when the page navigates.
func TestSnapshotFrames(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := watch(t, testbrowser.NewPage(t, testbrowser.SharedIsolated(t)), nil)
	load(t, w, srv.URL+"/frames")
	eventually(t, "two loaded iframes", func() bool {
		fs := w.Frames()
		return len(fs) == 2 && !fs[0].Loading && !fs[1].Loading
	})
	fs := w.Frames()
	require.True(t, fs[1].OutOfProcess, "the other site's iframe runs in its own process")
	s := snapshot(t, w, tabguard.SnapshotOptions{})
	// A document's numbers start past those of the documents before it
	// in the tab, so a ref never names two elements.
	want := "e1 button \"Outer\"\n" +
		"f1e2 link \"Link a\"\nf1e3 button \"Button a\"\n" +
		"f2e4 link \"Link b\"\nf2e5 button \"Button b\"\n"
	require.Equal(t, want, s.String())
	for i, e := range s.Elements[1:] {
		assert.Equal(t, fs[i/2].ID, e.Frame, e.Ref)
		frame, local, err := tabguard.RefTarget(w, e.Ref)
		require.NoError(t, err)
		assert.Equal(t, e.Frame, frame)
		res, err := w.EvalFrame(testbrowser.Context(t, 20*time.Second), frame,
			`(ref) => { const r = (`+pagejs.FindRef+`)(ref); return r.el ? r.el.textContent : "" }`, local)
		require.NoError(t, err)
		assert.Equal(t, e.Name, res.Value.Str(), "%s finds its element in its frame", e.Ref)
	}
	only := snapshot(t, w, tabguard.SnapshotOptions{Frame: fs[1].ID})
	assert.Equal(t, "f2e4 link \"Link b\"\nf2e5 button \"Button b\"\n", only.String(), "one frame, its refs the same")
	main := snapshot(t, w, tabguard.SnapshotOptions{Frame: string(w.TargetID())})
	assert.Equal(t, "e1 button \"Outer\"\n", main.String())
	windows := snapshot(t, w, tabguard.SnapshotOptions{MaxElements: 2, Offset: 2})
	assert.Equal(t, "f1e3 button \"Button a\"\nf2e4 link \"Link b\"\nshowing 2 of 5 elements from Offset 2: read on with Offset 4\n",
		windows.String(), "a window across frames")

	load(t, w, srv.URL+"/form")
	_, _, err := tabguard.RefTarget(w, "f2e4")
	assert.ErrorIs(t, err, tabguard.ErrStaleRef, "a frame of the earlier page")
	assert.Contains(t, err.Error(), "Watcher.Snapshot")
	_, _, err = tabguard.RefTarget(w, "f1x")
	assert.ErrorIs(t, err, tabguard.ErrInvalidArgument)
}

// TestSnapshotBusyPage: a page whose script never ends answers a timeout
// that says so, at the caller's deadline and at the eval timeout.
func TestSnapshotBusyPage(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := watch(t, testbrowser.Page(t), &tabguard.Options{EvalTimeout: 3 * time.Second})
	load(t, w, srv.URL+"/busy")
	for _, deadline := range []bool{true, false} {
		ctx := testbrowser.Context(t, 30*time.Second)
		if deadline {
			ctx = testbrowser.Context(t, 4*time.Second)
		}
		_, err := w.Snapshot(ctx, tabguard.SnapshotOptions{})
		var te *tabguard.TimeoutError
		require.ErrorAs(t, err, &te, "deadline %v: %v", deadline, err)
		assert.Equal(t, tabguard.TimeoutBusyScript, te.Cause, "deadline %v: %v", deadline, err)
		assert.Contains(t, err.Error(), "snapshot timed out")
	}
}
