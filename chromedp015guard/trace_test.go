package chromedp015guard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/tracerec"
	"github.com/tabguard/tabguard/tabtrace"
)

// TestTrace holds that Options.Trace hears of this backend's calls and of
// its tab's changes, as on rod and on current chromedp.
func TestTrace(t *testing.T) {
	var r tracerec.Recorder
	f := newFixture(t, &chromedp015guard.Options{Trace: r.Trace()})
	ctx := within(t, 20*time.Second)
	id := string(f.w.TargetID())
	require.True(t, r.Changed(tabtrace.TabWatched, id))

	_, err := f.w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	last, _ := r.Last()
	assert.Equal(t, tabtrace.Call{Op: tabtrace.OpEval, TargetID: id, URL: f.srv.URL + "/"}, last.Call)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)

	f.crash(t)
	deadline := time.Now().Add(10 * time.Second)
	for !r.Changed(tabtrace.TabCrashed, id) {
		require.False(t, time.Now().After(deadline), "no crash traced within 10s")
		time.Sleep(5 * time.Millisecond)
	}
	_, err = f.w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, chromedp015guard.ErrTabCrashed)
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OutcomeRefused, last.Done.Outcome)
	assert.Equal(t, chromedp015guard.ErrTabCrashed, last.Done.Reason)

	require.NoError(t, f.w.Reload(ctx))
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OpReload, last.Call.Op)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)
}
