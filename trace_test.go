package tabguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/tracerec"
	"github.com/tabguard/tabguard/tabtrace"
)

// TestTrace holds that Options.Trace hears of the rod backend's calls and
// of its tab's changes.
func TestTrace(t *testing.T) {
	var r tracerec.Recorder
	srv := serve(t)
	page := loadedPage(t, srv)
	w := watch(t, page, &tabguard.Options{Trace: r.Trace()})
	ctx := testbrowser.Context(t, 20*time.Second)
	id := string(page.TargetID)
	require.True(t, r.Changed(tabtrace.TabWatched, id))

	_, err := w.Eval(ctx, `() => 1`)
	require.NoError(t, err)
	last, _ := r.Last()
	assert.Equal(t, tabtrace.Call{Op: tabtrace.OpEval, TargetID: id, URL: srv.URL + "/"}, last.Call)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)

	crash(t, page)
	eventually(t, "the crash traced", func() bool { return r.Changed(tabtrace.TabCrashed, id) })
	_, err = w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrTabCrashed)
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OutcomeRefused, last.Done.Outcome)
	assert.Equal(t, tabguard.ErrTabCrashed, last.Done.Reason)
	assert.Equal(t, tabtrace.RefusedAfterBarrier, last.Done.Refused)

	require.NoError(t, w.Reload(ctx))
	last, _ = r.Last()
	assert.Equal(t, tabtrace.OpReload, last.Call.Op)
	assert.Equal(t, tabtrace.OutcomeOK, last.Done.Outcome)
}
