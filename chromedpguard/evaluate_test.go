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
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestEvaluateTakesExpressions: Evaluate takes what chromedp.Evaluate
// takes, an expression, and still calls a function definition with args;
// CallFunction calls what an expression names.
func TestEvaluateTakesExpressions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	for _, tt := range faultrows.EvaluateRows {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := chromedp.Run(f.tabWithin(t, 10*time.Second), chromedpguard.Evaluate[any](f.w, tt.JS, tt.Args...))
			require.NoError(t, err)
			if diff := cmp.Diff(tt.Want, got); diff != "" {
				t.Errorf("Evaluate(%q) mismatch (-want +got):\n%s", tt.JS, diff)
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
