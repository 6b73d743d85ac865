package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

func TestEvalHealthy(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	ctx := within(t, 10*time.Second)

	res, err := f.w.Eval(ctx, `(a, b) => a + b`, 1, 2)
	require.NoError(t, err)
	assert.Equal(t, "3", string(res.Value))

	title, err := chromedp.Run(f.tab, chromedpguard.Evaluate[string](f.w, `() => document.title`))
	require.NoError(t, err)
	assert.Equal(t, "ok", title)

	text, err := chromedp.Run(f.tab, chromedpguard.Guard(f.w, chromedp.Text(chromedp.CSS("p"))))
	require.NoError(t, err)
	assert.Equal(t, "héllo", text)

	_, err = f.w.Eval(ctx, `() => { throw new Error("boom") }`)
	var ee *chromedp.ExceptionError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "boom")

	_, err = f.w.Eval(ctx, "  ")
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	assert.Nil(t, f.w.Blocked(ctx))
	s := f.w.State()
	assert.True(t, s.Committed && s.Loaded, "state %+v", s)
	assert.Equal(t, f.srv.URL+"/", s.URL)

	err = f.w.Do(ctx, func(context.Context) error { return nil })
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument, "Do wants the tab's context")
	err = f.w.Do(f.tab, func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`))
		return err
	})
	assert.NoError(t, err)
}

// TestEvalPromises holds that a promise result, or any thenable, is
// awaited (by a second call: Chrome awaits nothing the first time), and
// its rejection is the eval's exception.
func TestEvalPromises(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	ctx := within(t, 10*time.Second)
	tests := []struct {
		name, js, want string
		args           []any
	}{
		{"async", `async () => 40 + 2`, "42", nil},
		{"timer", `() => new Promise(r => setTimeout(() => r("late"), 20))`, `"late"`, nil},
		{"thenable", `() => ({then(r) { r(7) }})`, "7", nil},
		{"object", `() => ({n: 2})`, `{"n":2}`, nil},
		{"a number, with a then on Number.prototype", `() => { Number.prototype.then = r => r(6); queueMicrotask(() => delete Number.prototype.then); return 5 }`, "5", nil},
		{"a page global named r", `() => { globalThis.r = 9; return r }`, "9", nil},
		{"arguments", `(a, b) => a + b`, "3", []any{1, 2}},
	}
	for _, tt := range tests {
		res, err := f.w.Eval(ctx, tt.js, tt.args...)
		require.NoError(t, err, tt.name)
		assert.JSONEq(t, tt.want, string(res.Value), tt.name)
	}
	_, err := f.w.Eval(ctx, `() => Promise.reject(new Error("nope"))`)
	var ee *chromedp.ExceptionError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "nope")
}

func TestDialog(t *testing.T) {
	t.Parallel()
	t.Run("prompt answered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", nil)
		f.runJS(t, `setTimeout(() => { window.answer = prompt("your name?", "x") }, 0)`)
		eventually(t, "the prompt", func() bool { return f.w.State().DialogOpen })
		require.NoError(t, f.w.HandleDialog(within(t, 10*time.Second), true, "tabguard"))
		res, err := f.w.Eval(within(t, 10*time.Second), `() => window.answer`)
		require.NoError(t, err)
		assert.Equal(t, `"tabguard"`, string(res.Value))
	})
	t.Run("policy accepts", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{Dialogs: chromedpguard.DialogAccept})
		res, err := f.w.Eval(within(t, 10*time.Second), `() => confirm("sure?")`)
		require.NoError(t, err, "the eval goes on")
		assert.Equal(t, "true", string(res.Value))
	})
	t.Run("opened before Watch, policy dismisses", func(t *testing.T) {
		t.Parallel()
		srv := serve(t)
		tab := newTab(t, sharedBrowser)
		ctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL)))
		go func() {
			_, _ = chromedp.Run(tab, chromedp.Evaluate[chromedp.Void](`setTimeout(() => confirm("early"), 0)`))
		}()
		time.Sleep(300 * time.Millisecond)
		w := watch(t, tab, &chromedpguard.Options{Dialogs: chromedpguard.DialogDismiss})
		res, err := w.Eval(within(t, 10*time.Second), `() => 1`)
		require.NoError(t, err)
		assert.Equal(t, "1", string(res.Value))
	})
}
