package chromedp015guard_test

import (
	"testing"
	"time"

	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/tracerec"
)

// TestTrace holds that Options.Trace hears of this backend's calls and of
// its tab's changes, as on rod and on current chromedp.
func TestTrace(t *testing.T) {
	var r tracerec.Recorder
	f := newFixture(t, &chromedp015guard.Options{Trace: r.Trace()})
	ctx := within(t, 20*time.Second)
	tracerec.CheckBackend(t, &r, tracerec.Backend{
		TargetID: string(f.w.TargetID()), URL: f.srv.URL + "/",
		Eval:   func() error { _, err := f.w.Eval(ctx, `() => 1`); return err },
		Crash:  func() { f.crash(t) },
		Reload: func() error { return f.w.Reload(ctx) },
	})
}
