package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// TestReloadUnnumbered reloads a tab on a driver whose events lack
// Page.frameStartedNavigating, as chromedp's before v0.13 do: the new
// document alone tells that the reload committed.
func TestReloadUnnumbered(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{})
			for i, loader := range []string{"L1", "L2", "L3"} {
				fx.f.Handle("Page.reload", func(string, json.RawMessage) enginetest.Reply {
					return enginetest.Reply{Events: []enginetest.Event{
						enginetest.Page(sess, tabstate.FrameNavigated{FrameID: target, LoaderID: loader, URL: pageURL}),
					}}
				})
				require.NoError(t, fx.tab.Reload(deadline(t)), "reload %d", i)
			}
		})
	}
}
