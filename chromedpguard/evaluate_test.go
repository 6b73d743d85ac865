package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// TestEvaluateTakesExpressions: Evaluate takes what chromedp.Evaluate
// takes, an expression, and still calls a function definition with args;
// CallFunction calls what an expression names.
func TestEvaluateTakesExpressions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	tests := []struct {
		name string
		js   string
		args []any
		want any
	}{
		{"expression", `document.title`, nil, "ok"},
		{"comparison", `document.readyState === "complete"`, nil, true},
		{"expression and semicolon", "document.title;\n", nil, "ok"},
		{"expression and line comment", `document.title // the title`, nil, "ok"},
		{"promise", `new Promise(r => setTimeout(() => r(7), 10))`, nil, 7.0},
		{"await", `await new Promise(r => setTimeout(() => r(8), 10)) + 1`, nil, 9.0},
		{"called arrow", `(() => 6 * 7)()`, nil, 42.0},
		{"function", `function () { return document.title }`, nil, "ok"},
		{"function with args", `function (a, b) { return a * b }`, []any{6, 7}, 42.0},
		{"arrow", `() => document.querySelector("p").textContent`, nil, "héllo"},
		{"arrow with args", `(a, b) => a + b`, []any{40, 2}, 42.0},
		{"async arrow with args", `async (sel) => document.querySelector(sel).textContent`, []any{"p"}, "héllo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chromedp.Run(f.tabWithin(t, 10*time.Second), chromedpguard.Evaluate[any](f.w, tt.js, tt.args...))
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate(%q) mismatch (-want +got):\n%s", tt.js, diff)
			}
		})
	}

	ctx := f.tabWithin(t, 10*time.Second)
	_, err := chromedp.Run(ctx, chromedpguard.Evaluate[any](f.w, `document.title`, 1))
	require.ErrorIs(t, err, chromedpguard.ErrInvalidArgument, "args to an expression")

	_, err = chromedp.Run(ctx, chromedpguard.Evaluate[any](f.w, `() => { window.double = x => x * 2 }`))
	require.NoError(t, err)
	n, err := chromedp.Run(ctx, chromedpguard.CallFunction[int](f.w, `window.double`, 21))
	require.NoError(t, err)
	assert.Equal(t, 42, n, "CallFunction calls a function an expression names")
	n, err = chromedp.Run(ctx, chromedpguard.CallFunction[int](f.w, `(a, b) => a + b`, 40, 2))
	require.NoError(t, err)
	assert.Equal(t, 42, n)
	_, err = chromedp.Run(ctx, chromedpguard.CallFunction[any](f.w, `document.title`))
	var ee *chromedp.ExceptionError
	require.ErrorAs(t, err, &ee, "a value that is no function")

	// chromedp's own Evaluate takes no await: Chrome refuses it in a script.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[int](`await Promise.resolve(1)`))
	require.ErrorAs(t, err, &ee, "chromedp.Evaluate with await")
	assert.Contains(t, err.Error(), "SyntaxError")
}

// TestFromContext: an action run under Guard, GuardSteps or Watcher.Do
// finds its watcher in its ctx; outside them it finds none.
func TestFromContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	var found, loaded int
	read := func(ctx context.Context) error {
		if w, ok := chromedpguard.FromContext(ctx); ok && w == f.w {
			found++
			if w.State().Loaded {
				loaded++
			}
		}
		return nil
	}
	var action chromedp.Action[chromedp.Void] = func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		return chromedp.Void{}, read(ctx)
	}
	ctx := f.tabWithin(t, 10*time.Second)
	require.NoError(t, chromedp.Do(ctx, action), "no guard")
	require.NoError(t, chromedp.Do(ctx, chromedpguard.Guard(f.w, action)))
	require.NoError(t, chromedp.Do(ctx, chromedpguard.GuardSteps(f.w, action, action)))
	require.NoError(t, f.w.Do(ctx, read))
	assert.Equal(t, 4, found, "actions that found the watcher")
	assert.Equal(t, 4, loaded, "actions that read a loaded tab")
}

// TestEvaluateStepName: a guarded step that Evaluate or CallFunction made
// is named after it when it runs out of time.
func TestEvaluateStepName(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: time.Second})
	tests := []struct {
		want string
		step chromedp.Action[chromedp.Void]
	}{
		{"action 2 of 2, chromedpguard.Evaluate", chromedpguard.Evaluate[chromedp.Void](f.w, `new Promise(() => {})`)},
		{"action 2 of 2, chromedpguard.CallFunction", chromedpguard.CallFunction[chromedp.Void](f.w, `() => new Promise(() => {})`)},
	}
	for _, tt := range tests {
		err := chromedp.Do(f.tabWithin(t, 20*time.Second), chromedpguard.GuardSteps(f.w, chromedp.WaitReady(chromedp.CSS("body")), tt.step))
		var te *chromedpguard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, tt.want, te.Step)
	}
}
