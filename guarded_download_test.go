package tabguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestGuardedCallsMeetADownload holds that every guarded call during which
// the tab's navigation became a download answers ErrDownload, as Navigate
// does, and never a timeout or rod's bare net::ERR_ABORTED: a Do whose
// rod call navigates, a Do that waits for a load that will never come, an
// eval whose script set the location and waits. An eval that returned its
// value before the download began keeps it. Each row starts on a loaded
// page: Chrome tells of a download only when the page before it has
// finished loading (download.go).
func TestGuardedCallsMeetADownload(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	fileURL := srv.URL + faultrows.DownloadPath
	setLocation := `location.href = "` + faultrows.DownloadPath + `"`
	tests := []struct {
		name string
		call func(ctx context.Context, w *tabguard.Watcher) error
	}{
		{"Do navigates", func(ctx context.Context, w *tabguard.Watcher) error {
			return w.Do(ctx, func(p *rod.Page) error { return p.Navigate(fileURL) })
		}},
		{"Do waits for a load", func(ctx context.Context, w *tabguard.Watcher) error {
			return w.Do(ctx, func(p *rod.Page) error {
				wait := p.WaitEvent(&proto.PageLoadEventFired{})
				if _, err := (proto.RuntimeEvaluate{Expression: setLocation}).Call(p); err != nil {
					return err
				}
				wait() // answers nothing when its context ends
				return nil
			})
		}},
		{"Eval sets the location and waits", func(ctx context.Context, w *tabguard.Watcher) error {
			_, err := w.Eval(ctx, `async () => { `+setLocation+`; await new Promise(() => {}) }`)
			return err
		}},
		{"Navigate", func(ctx context.Context, w *tabguard.Watcher) error { return w.Navigate(ctx, fileURL) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 8 * time.Second})
			err := tt.call(testbrowser.Context(t, 20*time.Second), w)
			var be *tabguard.BlockedError
			require.ErrorAs(t, err, &be, "%v", err)
			assert.ErrorIs(t, err, tabguard.ErrDownload)
			assert.Equal(t, fileURL, be.URL)
			assert.Contains(t, be.Detail, `"x.bin"`)
			res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => document.title`)
			require.NoError(t, err, "the old document answers")
			assert.Equal(t, "ok", res.Value.Str())
		})
	}
	t.Run("Eval that returned keeps its value", func(t *testing.T) {
		t.Parallel()
		w := watch(t, loadedPage(t, srv), &tabguard.Options{EvalTimeout: 8 * time.Second})
		res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => { `+setLocation+`; return 7 }`)
		require.NoError(t, err)
		assert.Equal(t, 7, res.Value.Int())
	})
}
