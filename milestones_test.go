package tabguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// allMilestones is the set a painted page reaches once its network is idle.
const allMilestones = tabguard.DOMContentLoaded | tabguard.FirstContentfulPaint |
	tabguard.FirstMeaningfulPaint | tabguard.NetworkAlmostIdle | tabguard.NetworkIdle

// settled is the wait the rows share: the one a program writes for a
// page that has shown its content and stopped loading.
func settled(s tabguard.TabState) bool {
	return s.Reached(tabguard.FirstMeaningfulPaint | tabguard.NetworkIdle | tabguard.DOMContentLoaded)
}

// windowPage opens a blank tab in a window of its own on the shared
// browser and closes it when t ends: a tab another test's tab hides
// paints nothing, and a paint is what the rows wait for.
func windowPage(t *testing.T) *rod.Page {
	t.Helper()
	b := testbrowser.Shared(t)
	target, err := proto.TargetCreateTarget{URL: "about:blank", NewWindow: true}.Call(b.Context(testbrowser.Context(t, 10*time.Second)))
	require.NoError(t, err, "open a window")
	page, err := b.PageFromTarget(target.TargetID)
	require.NoError(t, err, "attach to the window's tab")
	t.Cleanup(func() {
		_, _ = proto.TargetCloseTarget{TargetID: page.TargetID}.Call(b.Context(testbrowser.Context(t, 5*time.Second)))
	})
	return page
}

// TestMilestones: a navigation reaches every milestone, and the next one
// starts from none, whatever the first document reached.
func TestMilestones(t *testing.T) {
	srv, release := faultrows.MilestonesServer(t)
	w := watch(t, windowPage(t), nil)
	ctx := testbrowser.Context(t, 30*time.Second)

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
	if s.Reached(tabguard.NetworkIdle) {
		t.Errorf("Milestones right after Navigate = %v; want no NetworkIdle", s.Milestones)
	}
	// One request open is "almost idle": the new document's own milestones
	// come, and still no NetworkIdle.
	s, err = w.Wait(ctx, func(s tabguard.TabState) bool {
		return s.Reached(tabguard.DOMContentLoaded | tabguard.NetworkAlmostIdle)
	})
	require.NoError(t, err)
	if s.Reached(tabguard.NetworkIdle) {
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
// events: DOMContentLoaded and the network ones, not the paints.
func TestMilestonesAfterLoad(t *testing.T) {
	srv, _ := faultrows.MilestonesServer(t)
	page := windowPage(t)
	ctx := testbrowser.Context(t, 30*time.Second)
	idle := idleAfter(t, page, srv.URL+"/")

	w := watch(t, page, nil)
	want := tabguard.DOMContentLoaded | tabguard.NetworkAlmostIdle | tabguard.NetworkIdle
	s, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Reached(want) })
	require.NoError(t, err)
	// A round trip to the page: an event Chrome sent before its answer
	// has been seen by then.
	_, err = w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	s = w.State()
	require.Equal(t, idle, s.URL)
	if diff := cmp.Diff(want, s.Milestones); diff != "" {
		t.Errorf("Milestones of a page loaded before Watch (-want +got):\n%s", diff)
	}
	if s.Reached(tabguard.FirstContentfulPaint) {
		t.Error("Reached(FirstContentfulPaint) = true for a page painted before Watch; Chrome tells no paint again")
	}
}

// idleAfter loads url in page with no watcher and returns its URL once
// Chrome has said the new document's network is idle.
func idleAfter(t *testing.T, page *rod.Page, url string) string {
	t.Helper()
	ctx, stop := context.WithCancel(testbrowser.Context(t, 20*time.Second))
	p := page.Context(ctx)
	require.NoError(t, proto.PageSetLifecycleEventsEnabled{Enabled: true}.Call(p))
	idle := make(chan proto.NetworkLoaderID, 16)
	wait := p.EachEvent(func(e *proto.PageLifecycleEvent) {
		if e.Name == proto.PageLifecycleEventNameNetworkIdle {
			select {
			case idle <- e.LoaderID:
			case <-ctx.Done():
			}
		}
	})
	done := make(chan struct{})
	go func() { defer close(done); wait() }()
	defer func() { stop(); <-done }()

	nav, err := proto.PageNavigate{URL: url}.Call(p)
	require.NoError(t, err)
	// Enabling tells the blank page's idle again: only the new document's
	// counts.
	for {
		select {
		case id := <-idle:
			if id == nav.LoaderID {
				return url
			}
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
			w := watch(t, windowPage(t), &tabguard.Options{EvalTimeout: 3 * time.Second})
			require.NoError(t, w.Navigate(testbrowser.Context(t, 30*time.Second), srv.URL+row.Path))
			ctx, cancel := context.WithTimeout(testbrowser.Context(t, 30*time.Second), 3*time.Second)
			defer cancel()
			s, err := w.Wait(ctx, func(s tabguard.TabState) bool { return s.Reached(row.Want) })
			faultrows.CheckWaitTimeout(t, row, s, err)
		})
	}
}
