package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// chooser is the Page.fileChooserOpened of the page's single-file input.
var chooser = tabstate.FileChooserOpened{FrameID: target, Mode: tabstate.ChooserSingle, BackendNodeID: 7}

// TestFileChooserIntercepted holds that Watch asks Chrome to hold the
// tab's file choosers for the engine, with or without a callback, and not
// from the intake; and that a healthy call sends nothing more.
func TestFileChooserIntercepted(t *testing.T) {
	pick := func(context.Context, tabstate.FileChooser) ([]string, error) { return nil, nil }
	for _, tt := range []struct {
		name string
		pick func(context.Context, tabstate.FileChooser) ([]string, error)
		want string
	}{
		{"default", nil, `{"enabled":true,"cancel":false}`},
		{"callback", pick, `{"enabled":true,"cancel":false}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := setup(t, enginetest.EventsFirst, engine.Config{FileChooser: tt.pick})
			require.NoError(t, fx.tab.Do(deadline(t), "", ok))
			var sent []string
			for _, c := range fx.f.Calls() {
				if c.Method == "Page.setInterceptFileChooserDialog" {
					sent = append(sent, string(c.Params))
					assert.Equal(t, sess, c.Session)
					assert.False(t, c.FromIntake)
				}
			}
			assert.Equal(t, []string{tt.want}, sent)
		})
	}
}

// TestFileChooserCancelledByDefault holds that, with no callback, the
// engine cancels a chooser itself, from a goroutine of its own: the input
// hears a cancel event fired at it.
func TestFileChooserCancelledByDefault(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{})
	answer(fx.f, "DOM.resolveNode", map[string]any{"object": map[string]any{"objectId": "input-7"}})
	fx.f.Push(enginetest.Page(sess, chooser))
	ctx := deadline(t)
	for fx.f.Count("Runtime.releaseObject") == 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	var fired int
	for _, c := range fx.f.Calls() {
		switch c.Method {
		case "DOM.resolveNode":
			assert.JSONEq(t, `{"backendNodeId":7}`, string(c.Params))
		case "Runtime.callFunctionOn":
			fired++
			assert.Contains(t, string(c.Params), `"objectId":"input-7"`)
			assert.Contains(t, string(c.Params), `new Event(\"cancel\"`)
		}
		assert.False(t, c.FromIntake, "%s sent from event intake", c.Method)
	}
	assert.Equal(t, 1, fired, "one cancel event fired at the input")
	assert.Zero(t, fx.f.Count("DOM.setFileInputFiles"))
}

// TestFileChooserInFlight holds that a call in flight when Chrome reports
// a chooser it cancelled answers ErrFileChooser naming the input's mode,
// in both orders a driver sees replies and events; that a call's own error
// wins; and that a chooser reported while no call is in flight is no
// reason of the next call.
func TestFileChooserInFlight(t *testing.T) {
	for _, order := range orders {
		t.Run(order.String(), func(t *testing.T) {
			fx := setup(t, order, engine.Config{})
			opened := func(mode string) func(context.Context) error {
				return func(ctx context.Context) error {
					e := chooser
					e.Mode = mode
					fx.f.Push(enginetest.Page(sess, e))
					return nil
				}
			}
			err := fx.tab.Do(deadline(t), "", opened(tabstate.ChooserMultiple))
			var be *tabstate.BlockedError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, tabstate.ErrFileChooser, be.Reason)
			assert.Equal(t, "selectMultiple input", be.Detail)
			assert.Equal(t, pageURL, be.URL)
			assert.Contains(t, err.Error(), "set Options.FileChooser")
			require.NoError(t, fx.tab.Do(deadline(t), "", ok), "the next call answers")

			own := errors.New("the call's own error")
			err = fx.tab.Do(deadline(t), "", func(ctx context.Context) error { _ = opened(tabstate.ChooserSingle)(ctx); return own })
			assert.ErrorIs(t, err, own)

			fx.f.Push(enginetest.Page(sess, chooser))
			require.NoError(t, fx.tab.Do(deadline(t), "", ok), "a chooser before the call is not its reason")
		})
	}
}

// TestFileChooserCallback holds what the engine does with the answer of
// Options.FileChooser, asked in a goroutine of its own: files go to the
// input with DOM.setFileInputFiles; an error, no file, several files for a
// single-file input or a relative path cancel the chooser (the input
// hears a cancel event), and nothing is given to the input; an input that
// does not take the files (gone with its page, which a browser shows only
// by chance) is a cancelled chooser too. A call in flight meanwhile
// answers ErrFileChooser with why.
func TestFileChooserCallback(t *testing.T) {
	tests := []struct {
		name     string
		files    []string
		err      error
		setFails bool
		set      int    // DOM.setFileInputFiles sent
		fired    int    // cancel events fired at the input
		detail   string // of the ErrFileChooser, empty for none
	}{
		{name: "files", files: []string{"/tmp/a.txt"}, set: 1},
		{name: "error", err: errors.New("no file for you"), fired: 1, detail: "selectSingle input: Options.FileChooser failed: no file for you"},
		{name: "no file", fired: 1, detail: "selectSingle input: Options.FileChooser chose no file"},
		{name: "too many", files: []string{"/tmp/a.txt", "/tmp/b.txt"}, fired: 1,
			detail: "selectSingle input: Options.FileChooser chose 2 files for a single-file input"},
		{name: "relative", files: []string{"a.txt"}, fired: 1,
			detail: `selectSingle input: invalid argument: Options.FileChooser chose "a.txt", which is not an absolute path`},
		{name: "input gone", files: []string{"/tmp/a.txt"}, setFails: true, set: 1,
			detail: "selectSingle input: the input did not take Options.FileChooser's files: No node with given id found (-32000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int32
			var got tabstate.FileChooser
			ended := make(chan error, 1)
			cfg := engine.Config{
				Logger: slog.New(recordHandler{msg: "tabguard: file chooser cancelled", ch: ended}),
				FileChooser: func(ctx context.Context, c tabstate.FileChooser) ([]string, error) {
					asked.Add(1)
					got = c
					_, ok := ctx.Deadline()
					assert.True(t, ok, "the callback has a deadline")
					return tt.files, tt.err
				},
			}
			fx := setup(t, enginetest.EventsFirst, cfg)
			// What the page hears: its files, or a cancel event; for an
			// input gone, the log.
			heard := make(chan error, 1)
			hear := func() {
				select {
				case heard <- nil:
				default:
				}
			}
			if tt.setFails {
				heard = ended // hear is never called then
			}
			fx.f.Handle("Runtime.callFunctionOn", func(string, json.RawMessage) enginetest.Reply { hear(); return enginetest.Reply{} })
			fx.f.Handle("DOM.resolveNode", func(string, json.RawMessage) enginetest.Reply {
				return enginetest.Reply{Result: map[string]any{"object": map[string]any{"objectId": "input-7"}}}
			})
			fx.f.Handle("DOM.setFileInputFiles", func(string, json.RawMessage) enginetest.Reply {
				if tt.setFails {
					return enginetest.Reply{Err: &enginetest.ProtocolError{Code: -32000, Message: "No node with given id found"}}
				}
				if !tt.setFails {
					hear()
				}
				return enginetest.Reply{}
			})
			err := fx.tab.Do(deadline(t), "", func(ctx context.Context) error {
				fx.f.Push(enginetest.Page(sess, chooser))
				select { // as a program's call that awaits what the page does
				case <-heard:
				case <-ctx.Done():
				}
				return nil
			})
			if tt.detail == "" {
				require.NoError(t, err)
			} else {
				var be *tabstate.BlockedError
				require.ErrorAs(t, err, &be)
				assert.Equal(t, tabstate.ErrFileChooser, be.Reason)
				assert.Equal(t, tt.detail, be.Detail)
				assert.Contains(t, be.Advice(), "Options.FileChooser")
			}
			assert.EqualValues(t, 1, asked.Load())
			assert.Equal(t, tabstate.FileChooser{FrameID: target, URL: pageURL}, got)
			assert.Equal(t, tt.set, fx.f.Count("DOM.setFileInputFiles"))
			assert.Equal(t, tt.fired, fx.f.Count("Runtime.callFunctionOn"))
			for _, c := range fx.f.Calls() {
				switch c.Method {
				case "DOM.setFileInputFiles":
					assert.JSONEq(t, `{"files":["/tmp/a.txt"],"backendNodeId":7}`, string(c.Params))
					assert.False(t, c.FromIntake)
				case "Runtime.callFunctionOn":
					assert.Contains(t, string(c.Params), `"objectId":"input-7"`)
					assert.Contains(t, string(c.Params), `new Event(\"cancel\", {bubbles: true})`)
					assert.False(t, c.FromIntake)
				}
			}
			require.NoError(t, fx.tab.Do(deadline(t), "", ok), "the next call answers")
		})
	}
}

// recordHandler sends to ch, when there is room, each record whose
// message starts with msg.
type recordHandler struct {
	msg string
	ch  chan<- error
}

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordHandler) WithGroup(string) slog.Handler            { return h }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	if len(r.Message) >= len(h.msg) && r.Message[:len(h.msg)] == h.msg {
		select {
		case h.ch <- nil:
		default:
		}
	}
	return nil
}
