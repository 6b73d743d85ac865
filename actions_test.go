package tabguard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestActions: every action of faultrows.ActionRows, on a tab of its
// own, answers as the row says: what it did and set off, or the reason it
// could not act, first.
func TestActions(t *testing.T) {
	srv := faultrows.ActionsServer(t)
	for _, row := range faultrows.ActionRows {
		t.Run(row.Name, func(t *testing.T) {
			if row.Path != "/moving" {
				t.Parallel()
			}
			page := testbrowser.Page(t)
			if row.Path == "/moving" {
				// A tab in the background runs no animation frames, so
				// its animations stand still: this one has a window, and
				// runs before the others open their tabs in it.
				page = windowPage(t)
				_, err := page.Activate()
				require.NoError(t, err)
			}
			require.NoError(t, navigate(t, page, srv.URL+row.Path))
			require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
			w := watch(t, page, &tabguard.Options{EvalTimeout: 10 * time.Second})
			ctx := testbrowser.Context(t, 20*time.Second)
			if strings.Contains(row.Name, "deadline") {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 1500*time.Millisecond)
				defer cancel()
			}
			start := time.Now()
			acted, err := w.Act(ctx, row.Action)
			t.Logf("%v, %v in %v", acted, err, time.Since(start).Round(time.Millisecond))
			faultrows.CheckAction(t, row, acted, err, func(_ context.Context, js string) (string, error) {
				res, err := w.Eval(testbrowser.Context(t, 10*time.Second), "() => "+js)
				if err != nil {
					return "", err
				}
				return res.Value.Str(), nil
			})
		})
	}
}

// TestActBadInput: an action that names no action, no element, or a
// selector that is not CSS, and a nil context, are refused with
// ErrInvalidArgument, never a panic, and nothing is sent.
func TestActBadInput(t *testing.T) {
	t.Parallel()
	w := watch(t, loadedPage(t, serve(t)), nil)
	ctx := testbrowser.Context(t, 10*time.Second)
	for _, a := range []tabguard.Action{
		{},
		{Kind: tabguard.ActionClick},
		{Kind: tabguard.ActionPress, Key: "Ctrl+Shift+Q"},
		{Kind: tabguard.ActionClick, Selector: "[["},
		{Kind: tabguard.ActionClick, Ref: "x1"},
	} {
		_, err := w.Act(ctx, a)
		require.ErrorIs(t, err, tabguard.ErrInvalidArgument, "%+v", a)
	}
	_, err := w.Act(nil, tabguard.Action{Kind: tabguard.ActionClick, Selector: "p"}) //lint:ignore SA1012 bad input under test
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	_, err = w.Act(ctx, tabguard.Action{Kind: tabguard.ActionClick, Selector: "p"})
	require.NoError(t, err, "the tab answers")
}
