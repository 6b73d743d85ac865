package chromedpguard_test

import (
	"context"
	"github.com/tabguard/tabguard/internal/faultrows"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// allMilestones is the set a painted page reaches once its network is idle.
const allMilestones = chromedpguard.DOMContentLoaded | chromedpguard.FirstContentfulPaint |
	chromedpguard.FirstMeaningfulPaint | chromedpguard.NetworkAlmostIdle | chromedpguard.NetworkIdle

// settled is the wait the rows share: the one a program writes for a
// page that has shown its content and stopped loading.
func settled(s chromedpguard.TabState) bool {
	return s.Reached(chromedpguard.FirstMeaningfulPaint | chromedpguard.NetworkIdle | chromedpguard.DOMContentLoaded)
}

// TestMilestones: a navigation reaches every milestone, and the next one
// starts from none, whatever the first document reached. The tab has a
// window of its own: a tab another test's tab hides paints nothing.
func TestMilestones(t *testing.T) {
	srv, release := faultrows.MilestonesServer(t)
	w := watch(t, newWindow(t, sharedBrowser), nil)
	ctx := within(t, 30*time.Second)

	require.NoError(t, w.Navigate(ctx, srv.URL))
	s, err := w.Wait(ctx, settled)
	require.NoError(t, err)
	if diff := cmp.Diff(allMilestones, s.Milestones); diff != "" {
		t.Errorf("Milestones of the first page (-want +got):\n%s", diff)
	}

	// The second page's image is held, so its document cannot reach
	// NetworkIdle: one seen before the release is the first page's.
	require.NoError(t, w.Navigate(ctx, srv.URL+"/held"))
	s = w.State()
	require.Equal(t, srv.URL+"/held", s.URL)
	if s.Reached(chromedpguard.NetworkIdle) {
		t.Errorf("Milestones right after Navigate = %v; want no NetworkIdle", s.Milestones)
	}
	// One request open is "almost idle": the new document's own milestones
	// come, and still no NetworkIdle.
	s, err = w.Wait(ctx, func(s chromedpguard.TabState) bool {
		return s.Reached(chromedpguard.DOMContentLoaded | chromedpguard.NetworkAlmostIdle)
	})
	require.NoError(t, err)
	if s.Reached(chromedpguard.NetworkIdle) {
		t.Errorf("Milestones with the image held = %v; want no NetworkIdle", s.Milestones)
	}

	release()
	s, err = w.Wait(ctx, settled)
	require.NoError(t, err)
	if diff := cmp.Diff(allMilestones, s.Milestones); diff != "" {
		t.Errorf("Milestones of the second page (-want +got):\n%s", diff)
	}
}

// TestMilestonesAfterLoad: a tab watched once its page has loaded learns
// the milestones Chrome tells again when the watcher enables lifecycle
// events: DOMContentLoaded and the network ones, not the paints. chromedp
// had them enabled all along, but the watcher was not listening then.
func TestMilestonesAfterLoad(t *testing.T) {
	srv, _ := faultrows.MilestonesServer(t)
	tab := newWindow(t, sharedBrowser)
	idleAfter(t, tab, srv.URL+"/")

	w := watch(t, tab, nil)
	ctx := within(t, 30*time.Second)
	want := chromedpguard.DOMContentLoaded | chromedpguard.NetworkAlmostIdle | chromedpguard.NetworkIdle
	_, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Reached(want) })
	require.NoError(t, err)
	// A round trip to the page: an event Chrome sent before its answer
	// has been seen by then.
	_, err = w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	s := w.State()
	require.Equal(t, srv.URL+"/", s.URL)
	if diff := cmp.Diff(want, s.Milestones); diff != "" {
		t.Errorf("Milestones of a page loaded before Watch (-want +got):\n%s", diff)
	}
	if s.Reached(chromedpguard.FirstContentfulPaint) {
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
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*page.EventLifecycleEvent); ok && e.Name == "networkIdle" {
			mu.Lock()
			idle[e.LoaderID] = true
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}))
	nav, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: url})
	require.NoError(t, err)
	for {
		mu.Lock()
		done := idle[nav.LoaderID]
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
			w := watch(t, newWindow(t, sharedBrowser), nil)
			require.NoError(t, w.Navigate(within(t, 30*time.Second), srv.URL+row.Path))
			ctx, cancel := context.WithTimeout(within(t, 30*time.Second), 3*time.Second)
			defer cancel()
			s, err := w.Wait(ctx, func(s chromedpguard.TabState) bool { return s.Reached(row.Want) })
			faultrows.CheckWaitTimeout(t, row, s, err)
		})
	}
}
