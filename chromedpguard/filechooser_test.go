package chromedpguard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestFileChooser clicks file inputs as a user would (mouse pressed and
// released at the input's centre) in a Do that then awaits what the page
// heard, as the rod test does: cancelled by default (ErrFileChooser, the
// page hears cancel, the next Eval answers); filled by
// Options.FileChooser, or cancelled when it fails or answers a relative
// path, which is never given to the input.
func TestFileChooser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(a, []byte("hello"), 0o600))

	clickAndHear := func(t *testing.T, f *fixture, y float64) (heard string, err error) {
		err = f.w.Do(f.tabWithin(t, 10*time.Second), func(ctx context.Context) error {
			if err := realClick(ctx, faultrows.ChooserX, y); err != nil {
				return err
			}
			var err error
			heard, err = chromedp.Run(ctx, chromedp.Evaluate[string]("("+faultrows.ChooserSeen+")(1)", chromedp.EvalAwaitPromise))
			return err
		})
		return heard, err
	}

	t.Run("cancelled by default", func(t *testing.T) {
		f := newFixture(t, nil, faultrows.ChooserPath, nil)
		heard, err := clickAndHear(t, f, faultrows.ChooserSingleY)
		var be *chromedpguard.BlockedError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, chromedpguard.ErrFileChooser)
		assert.Equal(t, "selectSingle input", be.Detail)
		assert.Contains(t, err.Error(), "set Options.FileChooser")
		assert.Equal(t, "one:cancel", heard)
		res, err := f.w.Eval(within(t, 10*time.Second), `() => seen.length`)
		require.NoError(t, err, "the next eval answers at once")
		assert.JSONEq(t, "1", string(res.Value))
	})

	t.Run("callback", func(t *testing.T) {
		tests := []struct {
			name   string
			files  []string
			err    error
			hear   string
			detail string
		}{
			{name: "one file", files: []string{a}, hear: "one:change:a.txt/5"},
			{name: "error", err: errors.New("no file for you"), hear: "one:cancel",
				detail: "selectSingle input: Options.FileChooser failed: no file for you"},
			{name: "relative path", files: []string{"a.txt"}, hear: "one:cancel",
				detail: `selectSingle input: invalid argument: Options.FileChooser chose "a.txt", which is not an absolute path`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var (
					mu    sync.Mutex
					asked []chromedpguard.FileChooser
				)
				f := newFixture(t, nil, faultrows.ChooserPath, &chromedpguard.Options{
					FileChooser: func(ctx context.Context, fc chromedpguard.FileChooser) ([]string, error) {
						mu.Lock()
						asked = append(asked, fc)
						mu.Unlock()
						return tt.files, tt.err
					}})
				heard, err := clickAndHear(t, f, faultrows.ChooserSingleY)
				if tt.detail == "" {
					require.NoError(t, err)
				} else {
					var be *chromedpguard.BlockedError
					require.ErrorAs(t, err, &be)
					assert.ErrorIs(t, err, chromedpguard.ErrFileChooser)
					assert.Equal(t, tt.detail, be.Detail)
				}
				assert.Equal(t, tt.hear, heard)
				res, err := f.w.Eval(within(t, 10*time.Second), `() => seen.join(" ")`)
				require.NoError(t, err, "the next eval answers at once")
				assert.JSONEq(t, `"`+tt.hear+`"`, string(res.Value), "nothing more heard")
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, asked, 1)
				assert.False(t, asked[0].Multiple)
				assert.Equal(t, f.srv.URL+faultrows.ChooserPath, asked[0].URL)
			})
		}
	})
}

// realClick presses and releases the left mouse button at x, y, as a user
// would: the page gets a user gesture.
func realClick(ctx context.Context, x, y float64) error {
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if _, err := chromedp.Call(ctx, input.DispatchMouseEvent,
			input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1}); err != nil {
			return err
		}
	}
	return nil
}
