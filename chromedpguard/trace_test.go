package chromedpguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/tracerec"
	"github.com/tabguard/tabguard/tabtrace"
)

// TestTrace holds that Options.Trace hears of the chromedp backend's calls
// and of its tab's changes, as on rod.
func TestTrace(t *testing.T) {
	var r tracerec.Recorder
	f := newFixture(t, nil, "/", &chromedpguard.Options{Trace: r.Trace()})
	ctx := within(t, 20*time.Second)
	id := string(f.w.TargetID())
	require.True(t, r.Changed(tabtrace.TabWatched, id))

	_, err := f.w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	last, _ := r.Last()
	assert.Equal(t, tabtrace.Call{Op: tabtrace.OpEval, TargetID: id, URL: f.srv.URL + "/"}, last.Call)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)

	f.crash(t)
	eventually(t, "the crash traced", func() bool { return r.Changed(tabtrace.TabCrashed, id) })
	_, err = f.w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OutcomeRefused, last.Done.Outcome)
	assert.Equal(t, chromedpguard.ErrTabCrashed, last.Done.Reason)

	require.NoError(t, f.w.Reload(ctx))
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OpReload, last.Call.Op)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)
}
