package tabguard_test

import (
	"testing"
	"time"

	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/tracerec"
)

// TestTrace holds that Options.Trace hears of the rod backend's calls and
// of its tab's changes.
func TestTrace(t *testing.T) {
	var r tracerec.Recorder
	srv := serve(t)
	page := loadedPage(t, srv)
	w := watch(t, page, &tabguard.Options{Trace: r.Trace()})
	ctx := testbrowser.Context(t, 20*time.Second)
	tracerec.CheckBackend(t, &r, tracerec.Backend{
		TargetID: string(page.TargetID), URL: srv.URL + "/",
		Eval:   func() error { _, err := w.Eval(ctx, `() => 1`); return err },
		Crash:  func() { crash(t, page) },
		Reload: func() error { return w.Reload(ctx) },
	})
}
