package chromedp015guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestActions: the actions of faultrows.ActionRowsOn (all of them in a
// full run), each on a tab of its own, answer as the row says, as they
// do on rod and chromedp v0.23.
func TestActions(t *testing.T) {
	srv := faultrows.ActionsServer(t)
	for _, row := range faultrows.ActionRowsOn(faultrows.Chromedp) {
		t.Run(row.Name, func(t *testing.T) {
			if row.Path != "/moving" {
				t.Parallel()
			}
			if row.Path == "/navhang" {
				if _, err := cdproto.UnmarshalMessage(&cdproto.Message{Method: "Page.frameStartedNavigating", Params: []byte("{}")}); err != nil {
					// The tab learns a navigation began from this event:
					// without it, the read after the press waits for the
					// navigation Chrome holds the page's calls for.
					t.Skip("this chromedp's cdproto drops Page.frameStartedNavigating: " + err.Error())
				}
			}
			opts := &chromedp015guard.Options{EvalTimeout: 10 * time.Second}
			var f *fixture
			if row.Path == "/moving" {
				// A tab in the background runs no animation frames, so
				// its animations stand still: this one has a window, and
				// runs before the others open their tabs in it.
				f = windowFixture(t, opts)
			} else {
				f = newFixture(t, opts)
			}
			require.NoError(t, f.w.Navigate(within(t, 10*time.Second), srv.URL+row.Path))
			_, err := f.w.Wait(within(t, 10*time.Second), func(s chromedp015guard.TabState) bool { return s.Loaded })
			require.NoError(t, err)
			ctx := within(t, 20*time.Second)
			if strings.Contains(row.Name, "deadline") {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 1500*time.Millisecond)
				defer cancel()
			}
			start := time.Now()
			acted, err := f.w.Act(ctx, row.Action)
			t.Logf("%v, %v in %v", acted, err, time.Since(start).Round(time.Millisecond))
			faultrows.CheckAction(t, row, acted, err, func(_ context.Context, js string) (string, error) {
				v, err := f.w.Eval(within(t, 10*time.Second), "() => "+js)
				if err != nil {
					return "", err
				}
				var s string
				return s, json.Unmarshal(v.Value, &s)
			})
		})
	}
}

// windowFixture is newFixture with a tab in a window of its own, which is
// in front.
func windowFixture(t *testing.T, opts *chromedp015guard.Options) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(sharedBrowser, 10*time.Second)
	defer cancel()
	id, err := target.CreateTarget("about:blank").WithNewWindow(true).Do(cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser))
	require.NoError(t, err, "open a window")
	tab, closeTab := chromedp.NewContext(sharedBrowser, chromedp.WithTargetID(id))
	t.Cleanup(closeTab)
	require.NoError(t, chromedp.Run(tab, page.BringToFront()), "attach to the window's tab")
	w, err := chromedp015guard.Watch(tab, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return &fixture{tab: tab, w: w}
}
