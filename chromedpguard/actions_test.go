package chromedpguard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestActions: the actions of faultrows.ActionRowsOn (all of them in a
// full run), each on a tab of its own, answer as the row says, as they
// do on rod.
func TestActions(t *testing.T) {
	srv := faultrows.ActionsServer(t)
	for _, row := range faultrows.ActionRowsOn(faultrows.Chromedp) {
		t.Run(row.Name, func(t *testing.T) {
			if row.Path != "/moving" {
				t.Parallel()
			}
			tab := newTab(t, sharedBrowser)
			if row.Path == "/moving" {
				// A tab in the background runs no animation frames, so
				// its animations stand still: this one has a window, and
				// runs before the others open their tabs in it.
				tab = newWindow(t, sharedBrowser)
				_, err := chromedp.Call(tab, page.BringToFront, cdp.Empty{})
				require.NoError(t, err)
			}
			w := watch(t, tab, &chromedpguard.Options{EvalTimeout: 10 * time.Second})
			require.NoError(t, w.Navigate(within(t, 10*time.Second), srv.URL+row.Path))
			_, err := w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
			require.NoError(t, err)
			ctx := within(t, 20*time.Second)
			if strings.Contains(row.Name, "deadline") {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 1500*time.Millisecond)
				defer cancel()
			}
			start := time.Now()
			acted, err := w.Act(ctx, row.Action)
			t.Logf("%v, %v in %v", acted, err, time.Since(start).Round(time.Millisecond))
			faultrows.CheckAction(t, row, acted, err, func(_ context.Context, js string) (string, error) {
				v, err := w.Eval(within(t, 10*time.Second), "() => "+js)
				if err != nil {
					return "", err
				}
				var s string
				return s, json.Unmarshal(v.Value, &s)
			})
		})
	}
}
