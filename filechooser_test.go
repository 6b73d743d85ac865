package tabguard_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
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

// TestFileChooser clicks file inputs as a user would (mouse pressed and
// released at the input's centre) in a Do that then awaits what the page
// heard. By default the chooser is cancelled: the Do answers
// ErrFileChooser naming the input's mode, the page hears cancel, and the
// next Eval answers. With Options.FileChooser, its files reach the page
// (change, with each file's name and size); an error, several files for a
// single-file input or a relative path cancel the chooser, and nothing is
// given to the input.
func TestFileChooser(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	b := testbrowser.Shared(t)
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "c.txt")
	require.NoError(t, os.WriteFile(a, []byte("hello"), 0o600))
	require.NoError(t, os.WriteFile(c, []byte("abc"), 0o600))

	// clickAndHear clicks the input at y in a Do and returns what the page
	// heard and what the Do answered.
	clickAndHear := func(t *testing.T, w *tabguard.Watcher, y float64) (heard string, err error) {
		err = w.Do(testbrowser.Context(t, 10*time.Second), func(p *rod.Page) error {
			if err := realClick(p, faultrows.ChooserX, y); err != nil {
				return err
			}
			res, err := p.Eval(faultrows.ChooserSeen, 1)
			if err == nil {
				heard = res.Value.Str()
			}
			return err
		})
		return heard, err
	}
	open := func(t *testing.T, opts *tabguard.Options) *tabguard.Watcher {
		page := testbrowser.NewPage(t, b)
		require.NoError(t, navigate(t, page, srv.URL+faultrows.ChooserPath))
		require.NoError(t, page.Context(testbrowser.Context(t, 10*time.Second)).WaitLoad())
		return watch(t, page, opts)
	}

	t.Run("cancelled by default", func(t *testing.T) {
		cancelled := make(chan error, 8)
		w := open(t, &tabguard.Options{Logger: slog.New(chooserLog{cancelled})})
		for _, in := range []struct {
			y          float64
			mode, hear string
		}{
			{faultrows.ChooserSingleY, "selectSingle", "one:cancel"},
			{faultrows.ChooserMultipleY, "selectMultiple", "many:cancel"},
		} {
			heard, err := clickAndHear(t, w, in.y)
			var be *tabguard.BlockedError
			require.ErrorAs(t, err, &be)
			assert.ErrorIs(t, err, tabguard.ErrFileChooser)
			assert.Equal(t, in.mode+" input", be.Detail)
			assert.Contains(t, err.Error(), "set Options.FileChooser")
			assert.Equal(t, in.hear, heard)
			res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => seen.splice(0).length`)
			require.NoError(t, err, "the next eval answers at once")
			assert.Equal(t, 1, res.Value.Int())
			select {
			case err := <-cancelled:
				assert.ErrorIs(t, err, tabguard.ErrFileChooser)
			case <-testbrowser.Context(t, 10*time.Second).Done():
				t.Fatal("no cancelled chooser logged")
			}
		}
		// A Do that only clicks ends before Chrome reports the chooser,
		// most often: the chooser is logged either way.
		err := w.Do(testbrowser.Context(t, 10*time.Second), func(p *rod.Page) error {
			return realClick(p, faultrows.ChooserX, faultrows.ChooserSingleY)
		})
		if err != nil {
			require.ErrorIs(t, err, tabguard.ErrFileChooser)
		}
		select {
		case err := <-cancelled:
			assert.ErrorIs(t, err, tabguard.ErrFileChooser)
		case <-testbrowser.Context(t, 10*time.Second).Done():
			t.Fatal("no cancelled chooser logged")
		}
	})

	t.Run("callback", func(t *testing.T) {
		tests := []struct {
			name   string
			y      float64
			files  []string
			err    error
			hear   string
			detail string // of the ErrFileChooser; empty for none
		}{
			{name: "one file", y: faultrows.ChooserSingleY, files: []string{a}, hear: "one:change:a.txt/5"},
			{name: "two files", y: faultrows.ChooserMultipleY, files: []string{a, c}, hear: "many:change:a.txt/5,c.txt/3"},
			{name: "error", y: faultrows.ChooserSingleY, err: errors.New("no file for you"), hear: "one:cancel",
				detail: "selectSingle input: Options.FileChooser failed: no file for you"},
			{name: "two files for one", y: faultrows.ChooserSingleY, files: []string{a, c}, hear: "one:cancel",
				detail: "selectSingle input: Options.FileChooser chose 2 files for a single-file input"},
			{name: "relative path", y: faultrows.ChooserSingleY, files: []string{"a.txt"}, hear: "one:cancel",
				detail: `selectSingle input: invalid argument: Options.FileChooser chose "a.txt", which is not an absolute path`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var (
					mu    sync.Mutex
					asked []tabguard.FileChooser
				)
				w := open(t, &tabguard.Options{FileChooser: func(ctx context.Context, fc tabguard.FileChooser) ([]string, error) {
					mu.Lock()
					asked = append(asked, fc)
					mu.Unlock()
					return tt.files, tt.err
				}})
				heard, err := clickAndHear(t, w, tt.y)
				if tt.detail == "" {
					require.NoError(t, err)
				} else {
					var be *tabguard.BlockedError
					require.ErrorAs(t, err, &be)
					assert.ErrorIs(t, err, tabguard.ErrFileChooser)
					assert.Equal(t, tt.detail, be.Detail)
				}
				// A relative path sent would be taken: Chrome reads it as a
				// file of 0 bytes, and the page would hear change.
				assert.Equal(t, tt.hear, heard)
				res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => seen.join(" ")`)
				require.NoError(t, err, "the next eval answers at once")
				assert.Equal(t, tt.hear, res.Value.Str(), "nothing more heard")
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, asked, 1)
				assert.Equal(t, tt.y == faultrows.ChooserMultipleY, asked[0].Multiple)
				assert.Equal(t, srv.URL+faultrows.ChooserPath, asked[0].URL)
				assert.NotEmpty(t, asked[0].FrameID)
			})
		}
	})
}

// realClick presses and releases the left mouse button at x, y, as a user
// would: the page gets a user gesture.
func realClick(p *rod.Page, x, y float64) error {
	for _, typ := range []proto.InputDispatchMouseEventType{proto.InputDispatchMouseEventTypeMousePressed, proto.InputDispatchMouseEventTypeMouseReleased} {
		if err := (proto.InputDispatchMouseEvent{Type: typ, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1}).Call(p); err != nil {
			return err
		}
	}
	return nil
}

// chooserLog is a slog handler that sends the error of each "file chooser
// cancelled" record to ch, dropping it when ch is full.
type chooserLog struct{ ch chan<- error }

func (h chooserLog) Enabled(context.Context, slog.Level) bool { return true }
func (h chooserLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h chooserLog) WithGroup(string) slog.Handler            { return h }
func (h chooserLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "tabguard: file chooser cancelled" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "err" {
			select {
			case h.ch <- err:
			default:
			}
		}
		return true
	})
	return nil
}
