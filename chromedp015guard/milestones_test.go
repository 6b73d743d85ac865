package chromedp015guard_test

import (
	"context"
	"github.com/tabguard/tabguard/internal/faultrows"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
)

// allMilestones is the set a painted page reaches once its network is idle.
const allMilestones = chromedp015guard.DOMContentLoaded | chromedp015guard.FirstContentfulPaint |
	chromedp015guard.FirstMeaningfulPaint | chromedp015guard.NetworkAlmostIdle | chromedp015guard.NetworkIdle

// settled is the wait the rows share: the one a program writes for a
// page that has shown its content and stopped loading.
func settled(s chromedp015guard.TabState) bool {
	return s.Reached(chromedp015guard.FirstMeaningfulPaint | chromedp015guard.NetworkIdle | chromedp015guard.DOMContentLoaded)
}

// windowTab opens a blank tab in a window of its own on the shared
// browser and closes it when t ends: a tab another test's tab hides
// paints nothing, and a paint is what the rows wait for.
func windowTab(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(sharedBrowser, 10*time.Second)
	defer cancel()
	var id target.ID
	require.NoError(t, chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		id, err = target.CreateTarget("about:blank").WithNewWindow(true).Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
		return err
	})), "open a window")
	tab, cancel := chromedp.NewContext(sharedBrowser, chromedp.WithTargetID(id))
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Run(tab), "attach to the window's tab")
	return tab
}

// watch watches tab and closes the watcher when t ends.
func watch(t *testing.T, tab context.Context) *chromedp015guard.Watcher {
	t.Helper()
	w, err := chromedp015guard.Watch(tab, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// TestMilestones: a navigation reaches every milestone, and the next one
// starts from none, whatever the first document reached.
func TestMilestones(t *testing.T) {
	srv, release := faultrows.MilestonesServer(t)
	w := watch(t, windowTab(t))
	ctx := within(t, 30*time.Second)

	require.NoError(t, w.Navigate(ctx, srv.URL))
	s, err := w.Wait(ctx, settled)
	require.NoError(t, err)
	if s.Milestones != allMilestones {
		t.Errorf("Milestones of the first page = %v; want %v", s.Milestones, allMilestones)
	}

	// The second page's image is held, so its document cannot reach
	// NetworkIdle: one seen before the release is the first page's.
	require.NoError(t, w.Navigate(ctx, srv.URL+"/held"))
	s = w.State()
	require.Equal(t, srv.URL+"/held", s.URL)
	if s.Reached(chromedp015guard.NetworkIdle) {
		t.Errorf("Milestones right after Navigate = %v; want no NetworkIdle", s.Milestones)
	}
	// One request open is "almost idle": the new document's own milestones
	// come, and still no NetworkIdle.
	s, err = w.Wait(ctx, func(s chromedp015guard.TabState) bool {
		return s.Reached(chromedp015guard.DOMContentLoaded | chromedp015guard.NetworkAlmostIdle)
	})
	require.NoError(t, err)
	if s.Reached(chromedp015guard.NetworkIdle) {
		t.Errorf("Milestones with the image held = %v; want no NetworkIdle", s.Milestones)
	}

	release()
	s, err = w.Wait(ctx, settled)
	require.NoError(t, err)
	if s.Milestones != allMilestones {
		t.Errorf("Milestones of the second page = %v; want %v", s.Milestones, allMilestones)
	}
}

// TestMilestonesAfterLoad: a tab watched once its page has loaded learns
// the milestones Chrome tells again when the watcher enables lifecycle
// events: DOMContentLoaded and the network ones, not the paints. chromedp
// had them enabled all along, but the watcher was not listening then.
func TestMilestonesAfterLoad(t *testing.T) {
	srv, _ := faultrows.MilestonesServer(t)
	tab := windowTab(t)
	idleAfter(t, tab, srv.URL+"/")

	w := watch(t, tab)
	ctx := within(t, 30*time.Second)
	want := chromedp015guard.DOMContentLoaded | chromedp015guard.NetworkAlmostIdle | chromedp015guard.NetworkIdle
	_, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Reached(want) })
	require.NoError(t, err)
	// A round trip to the page: an event Chrome sent before its answer
	// has been seen by then.
	_, err = w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	s := w.State()
	require.Equal(t, srv.URL+"/", s.URL)
	if s.Milestones != want {
		t.Errorf("Milestones of a page loaded before Watch = %v; want %v", s.Milestones, want)
	}
	if s.Reached(chromedp015guard.FirstContentfulPaint) {
		t.Error("Reached(FirstContentfulPaint) = true for a page painted before Watch; Chrome tells no paint again")
	}
}

// idleAfter loads url in tab with no watcher and returns once Chrome has
// said the new document's network is idle.
func idleAfter(t *testing.T, tab context.Context, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	idle := map[cdp.LoaderID]bool{}
	changed := make(chan struct{}, 1)
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*page.EventLifecycleEvent); ok && e.Name == "networkIdle" {
			mu.Lock()
			idle[e.LoaderID] = true
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	var tree *page.FrameTree
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate(url), chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		tree, err = page.GetFrameTree().Do(ctx)
		return err
	})))
	for {
		mu.Lock()
		done := idle[tree.Frame.LoaderID]
		mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("Chrome said the page's network was idle not within 20s")
		}
	}
}

// TestWaitTimeout: a wait that runs out of time answers as every call
// does, with a *TimeoutError that names what the tab was doing, the
// milestones its document reached, and the ones still missing.
func TestWaitTimeout(t *testing.T) {
	srv, _ := faultrows.MilestonesServer(t)
	for _, row := range faultrows.WaitRows {
		t.Run(row.Name, func(t *testing.T) {
			w := watch(t, windowTab(t))
			require.NoError(t, w.Navigate(within(t, 30*time.Second), srv.URL+row.Path))
			ctx, cancel := context.WithTimeout(within(t, 30*time.Second), 3*time.Second)
			defer cancel()
			s, err := w.Wait(ctx, func(s chromedp015guard.TabState) bool { return s.Reached(row.Want) })
			faultrows.CheckWaitTimeout(t, row, s, err)
		})
	}
}
