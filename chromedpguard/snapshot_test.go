package chromedpguard_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/pagejs"
)

// serveSnap starts a 127.0.0.1 server of faultrows.SnapshotServer's
// pages.
func serveSnap(t testing.TB) *httptest.Server {
	t.Helper()
	return faultrows.SnapshotServer(t, nil)
}

// snapWatcher watches a new tab of the shared browser, the one with site
// isolation on when isolated, loaded with srv's page path.
func snapWatcher(t *testing.T, isolated bool, srv *httptest.Server, path string, opts *chromedpguard.Options) *chromedpguard.Watcher {
	t.Helper()
	b := sharedBrowser
	if isolated {
		b = sharedIsolated(t)
	}
	w := watch(t, newTab(t, b), opts)
	require.NoError(t, w.Navigate(within(t, 20*time.Second), srv.URL+path))
	_, err := w.Wait(within(t, 20*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	return w
}

// TestSnapshotCaps: a page of 5,000 links answers at most the caps, and
// windows read on by NextOffset join exactly.
func TestSnapshotCaps(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := snapWatcher(t, false, srv, "/links?n=5000", &chromedpguard.Options{EvalTimeout: 30 * time.Second})
	s, err := w.Snapshot(within(t, 20*time.Second), chromedpguard.SnapshotOptions{})
	require.NoError(t, err)
	assert.Equal(t, chromedpguard.DefaultSnapshotElements, s.Shown)
	assert.Equal(t, 5000, s.Total)
	assert.Equal(t, "showing 500 of 5000 elements: read on with Offset 500", s.Notice())
	assert.LessOrEqual(t, len(s.String()), chromedpguard.DefaultSnapshotBytes)

	var joined []string
	for offset, windows := 0, 0; offset < 1200; windows++ {
		require.Less(t, windows, 10)
		win, err := w.Snapshot(within(t, 20*time.Second), chromedpguard.SnapshotOptions{MaxElements: 5000, MaxBytes: 8192, Offset: offset})
		require.NoError(t, err)
		require.LessOrEqual(t, len(win.String()), 8192)
		for _, e := range win.Elements {
			joined = append(joined, e.Ref+" "+e.Name)
		}
		offset = win.NextOffset
	}
	var want []string
	for i := range len(joined) {
		want = append(want, fmt.Sprintf("e%d Item %d", i+1, i))
	}
	if diff := cmp.Diff(want, joined); diff != "" {
		t.Errorf("windows joined mismatch (-want +got):\n%s", diff)
	}
}

// TestSnapshotFrames lists the elements of an iframe of the same site and
// of one of another site, in its own process: their refs name their
// frames, and an element is found by its ref in its frame.
func TestSnapshotFrames(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := snapWatcher(t, true, srv, "/frames", nil)
	eventually(t, "two loaded iframes", func() bool {
		fs := w.Frames()
		return len(fs) == 2 && !fs[0].Loading && !fs[1].Loading
	})
	fs := w.Frames()
	require.True(t, fs[1].OutOfProcess)
	s, err := w.Snapshot(within(t, 20*time.Second), chromedpguard.SnapshotOptions{})
	require.NoError(t, err)
	require.Equal(t, "e1 button \"Outer\"\n"+
		"f1e2 link \"Link a\"\nf1e3 button \"Button a\"\n"+
		"f2e4 link \"Link b\"\nf2e5 button \"Button b\"\n", s.String())
	for i, e := range s.Elements[1:] {
		assert.Equal(t, fs[i/2].ID, e.Frame, e.Ref)
		res, err := w.EvalFrame(within(t, 20*time.Second), e.Frame,
			`(ref) => { const r = (`+pagejs.FindRef+`)(ref); return r.el ? r.el.textContent : "" }`, strings.TrimLeft(e.Ref, "f0123456789"))
		require.NoError(t, err)
		assert.Equal(t, e.Name, str(res), "%s finds its element in its frame", e.Ref)
	}
}

// TestSnapshotBusyPage: a page whose script never ends answers a timeout
// that says so.
func TestSnapshotBusyPage(t *testing.T) {
	t.Parallel()
	srv := serveSnap(t)
	w := snapWatcher(t, false, srv, "/busy", &chromedpguard.Options{EvalTimeout: 3 * time.Second})
	_, err := w.Snapshot(within(t, 30*time.Second), chromedpguard.SnapshotOptions{})
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te, "%v", err)
	assert.Equal(t, chromedpguard.TimeoutBusyScript, te.Cause, "%v", err)
	assert.Contains(t, err.Error(), "snapshot timed out")
}
