package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestGuardedActionsMeetADownload holds that every guarded call during
// which the tab's navigation became a download answers ErrDownload, as
// Navigate does, and never a timeout or chromedp's bare load error: a
// guarded chromedp.Navigate, the same in a guarded list of steps, an
// Evaluate whose script set the location and waits. An eval that returned
// its value before the download began keeps it. Each row starts on a
// loaded page: Chrome tells of a download only when the page before it
// has finished loading.
func TestGuardedActionsMeetADownload(t *testing.T) {
	t.Parallel()
	setLocation := `location.href = "` + faultrows.DownloadPath + `"`
	tests := []struct {
		name string
		call func(f *fixture, ctx context.Context) error
	}{
		{"Guard of Navigate", func(f *fixture, ctx context.Context) error {
			return chromedp.Do(ctx, chromedpguard.Guard(f.w, chromedp.Navigate(f.srv.URL+faultrows.DownloadPath)))
		}},
		{"Evaluate sets the location and waits", func(f *fixture, ctx context.Context) error {
			_, err := chromedp.Run(ctx, chromedpguard.Evaluate[any](f.w, `async () => { `+setLocation+`; await new Promise(() => {}) }`))
			return err
		}},
		{"Navigate", func(f *fixture, ctx context.Context) error {
			return f.w.Navigate(ctx, f.srv.URL+faultrows.DownloadPath)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 8 * time.Second})
			err := tt.call(f, f.tabWithin(t, 20*time.Second))
			var be *chromedpguard.BlockedError
			require.ErrorAs(t, err, &be, "%v", err)
			assert.ErrorIs(t, err, chromedpguard.ErrDownload)
			assert.Equal(t, f.srv.URL+faultrows.DownloadPath, be.URL)
			assert.Contains(t, be.Detail, `"x.bin"`)
			res, err := f.w.Eval(within(t, 10*time.Second), `() => document.title`)
			require.NoError(t, err, "the old document answers")
			assert.JSONEq(t, `"ok"`, string(res.Value))
		})
	}
	t.Run("Evaluate that returned keeps its value", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 8 * time.Second})
		n, err := chromedp.Run(f.tabWithin(t, 10*time.Second), chromedpguard.Evaluate[int](f.w, `() => { `+setLocation+`; return 7 }`))
		require.NoError(t, err)
		assert.Equal(t, 7, n)
	})
}
