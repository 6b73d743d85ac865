package chromedpguard_test

import (
	"testing"
	"time"

	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/tracerec"
)

// TestTrace holds that Options.Trace hears of the chromedp backend's calls
// and of its tab's changes, as on rod.
func TestTrace(t *testing.T) {
	var r tracerec.Recorder
	f := newFixture(t, nil, "/", &chromedpguard.Options{Trace: r.Trace()})
	ctx := within(t, 20*time.Second)
	tracerec.CheckBackend(t, &r, tracerec.Backend{
		TargetID: string(f.w.TargetID()), URL: f.srv.URL + "/",
		Eval:   func() error { _, err := f.w.Eval(ctx, `() => 1`); return err },
		Crash:  func() { f.crash(t) },
		Reload: func() error { return f.w.Reload(ctx) },
	})
}
