package tabguard_test

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestDialogPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy tabguard.DialogPolicy
		js     string
		want   any
	}{
		{"alert accepted, the eval goes on", tabguard.DialogAccept, `() => { alert("x"); return 2 }`, 2.0},
		{"alert dismissed, the eval goes on", tabguard.DialogDismiss, `() => { alert("x"); return 2 }`, 2.0},
		{"confirm accepted", tabguard.DialogAccept, `() => confirm("sure?")`, true},
		{"confirm dismissed", tabguard.DialogDismiss, `() => confirm("sure?")`, false},
		{"prompt accepted with its default", tabguard.DialogAccept, `() => prompt("name?", "preset")`, "preset"},
		{"prompt dismissed", tabguard.DialogDismiss, `() => prompt("name?", "preset")`, nil},
		{"three dialogs in a row", tabguard.DialogAccept, `() => { alert(1); alert(2); return confirm(3) }`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			w := watch(t, loadedPage(t, serve(t)), &tabguard.Options{
				EvalTimeout: 10 * time.Second,
				Dialogs:     tt.policy,
				Logger:      slog.New(slog.NewTextHandler(&logs, nil)),
			})
			res, err := w.Eval(testbrowser.Context(t, 20*time.Second), tt.js)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Value.Val())
			assert.Contains(t, logs.String(), `msg="tabguard: JavaScript dialog handled by policy"`)
			assert.Contains(t, logs.String(), "policy="+tt.policy.String())
			assert.Regexp(t, `dialog="(alert|confirm|prompt) \\"`, logs.String(), "the log names the dialog's type and text")
			require.NoError(t, w.Blocked(testbrowser.Context(t, 5*time.Second)))
		})
	}
}

// A dialog the page opens on its own is handled too, and calls made while
// it is being handled are not refused.
func TestDialogPolicyPageDialog(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, &tabguard.Options{EvalTimeout: 10 * time.Second, Dialogs: tabguard.DialogDismiss})
	ctx := testbrowser.Context(t, 20*time.Second)
	_, err := w.Eval(ctx, `() => { setTimeout(() => { window.answer = confirm("leave?") }, 0) }`)
	require.NoError(t, err)
	for range 20 {
		_, err := w.Eval(ctx, `() => 1`)
		require.NoError(t, err, "a call while the dialog is handled")
	}
	res, err := w.Eval(ctx, `() => new Promise(r => { const check = () => "answer" in window ? r(window.answer) : setTimeout(check, 10); check() })`)
	require.NoError(t, err)
	assert.Equal(t, false, res.Value.Bool())
}

// Under DialogAccept, Watch clears a dialog that opened before it: rod's
// page session had the Page domain on when it opened.
func TestDialogPolicyClearsDialogBeforeWatch(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	_, err := proto.RuntimeEvaluate{Expression: `setTimeout(() => { window.answer = confirm("before") }, 0)`}.Call(page.Context(testbrowser.Context(t, 5*time.Second)))
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // the dialog is open: every page command is held

	var logs bytes.Buffer
	w := watch(t, page, &tabguard.Options{
		EvalTimeout: 5 * time.Second,
		Dialogs:     tabguard.DialogAccept,
		Logger:      slog.New(slog.NewTextHandler(&logs, nil)),
	})
	res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => window.answer`)
	require.NoError(t, err)
	assert.Equal(t, true, res.Value.Bool())
	assert.Contains(t, logs.String(), "JavaScript dialog that opened before Watch handled by policy")
}

// Under DialogRefuse the refusal names the calls that end it.
func TestDialogRefuseNamesTheFix(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.runJS(t, `setTimeout(() => alert("stop"), 0)`)
	f.waitBlocked(t, tabguard.ErrDialogOpen)
	_, err := f.w.Eval(testbrowser.Context(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrDialogOpen)
	assert.Equal(t, `tab has a JavaScript dialog open: alert "stop": accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs`, err.Error())
	assert.Equal(t, "DialogRefuse", tabguard.DialogRefuse.String())
	assert.Equal(t, "DialogPolicy(7)", tabguard.DialogPolicy(7).String())
}
