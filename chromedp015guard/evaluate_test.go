package chromedp015guard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedp015guard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// TestEvaluateTakesExpressions: Evaluate takes what chromedp.Evaluate
// takes, an expression, and still calls a function definition with args;
// CallFunction calls what an expression names.
func TestEvaluateTakesExpressions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, tt := range faultrows.EvaluateRows {
		t.Run(tt.Name, func(t *testing.T) {
			var got any
			require.NoError(t, f.run(t, chromedp015guard.Evaluate(f.w, tt.JS, &got, tt.Args...)))
			if got != tt.Want {
				t.Errorf("Evaluate(%q) = %#v; want %#v", tt.JS, got, tt.Want)
			}
		})
	}

	var n int
	err := f.run(t, chromedp015guard.Evaluate(f.w, `document.title`, nil, 1))
	require.ErrorIs(t, err, chromedp015guard.ErrInvalidArgument, "args to an expression")

	err = f.run(t,
		chromedp015guard.Evaluate(f.w, `() => { window.double = x => x * 2 }`, nil),
		chromedp015guard.CallFunction(f.w, `window.double`, &n, 21))
	require.NoError(t, err)
	assert.Equal(t, 42, n, "CallFunction calls a function an expression names")
	err = f.run(t, chromedp015guard.CallFunction(f.w, `(a, b) => a + b`, &n, 40, 2))
	require.NoError(t, err)
	assert.Equal(t, 42, n)
	err = f.run(t, chromedp015guard.CallFunction(f.w, `document.title`, nil))
	var exc *runtime.ExceptionDetails
	require.ErrorAs(t, err, &exc, "a value that is no function")

	// chromedp's own Evaluate takes no await: Chrome refuses it in a script.
	err = f.run(t, chromedp.Evaluate(`await Promise.resolve(1)`, &n))
	require.ErrorAs(t, err, &exc, "chromedp.Evaluate with await")
	assert.Contains(t, err.Error(), "SyntaxError")
}

// TestFromContext: an action run under Guard (each of a chromedp.Tasks
// too) or Watcher.Do finds its watcher in its ctx; outside them it finds
// none.
func TestFromContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	var found, loaded int
	read := chromedp.ActionFunc(func(ctx context.Context) error {
		if w, ok := chromedp015guard.FromContext(ctx); ok && w == f.w {
			found++
			if w.State().Loaded {
				loaded++
			}
		}
		return nil
	})
	require.NoError(t, f.run(t, read), "no guard")
	require.NoError(t, f.run(t, chromedp015guard.Guard(f.w, read)))
	require.NoError(t, f.run(t, chromedp015guard.Guard(f.w, chromedp.Tasks{read, read})))
	err := f.run(t, chromedp.ActionFunc(func(ctx context.Context) error { return f.w.Do(ctx, read.Do) }))
	require.NoError(t, err)
	assert.Equal(t, 4, found, "actions that found the watcher")
	assert.Equal(t, 4, loaded, "actions that read a loaded tab")
}

// run runs actions on the tab with chromedp, within 10s.
func (f *fixture) run(t *testing.T, actions ...chromedp.Action) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(f.tab, 10*time.Second)
	defer cancel()
	return chromedp.Run(ctx, actions...)
}

// TestEvaluateStepName: a guarded step that Evaluate or CallFunction made
// is named after it when it runs out of time.
func TestEvaluateStepName(t *testing.T) {
	t.Parallel()
	f := newFixture(t, &chromedp015guard.Options{EvalTimeout: time.Second})
	tests := []struct {
		want string
		step chromedp.Action
	}{
		{"action 2 of 2, chromedp015guard.Evaluate", chromedp015guard.Evaluate(f.w, `new Promise(() => {})`, nil)},
		{"action 2 of 2, chromedp015guard.CallFunction", chromedp015guard.CallFunction(f.w, `() => new Promise(() => {})`, nil)},
	}
	for _, tt := range tests {
		err := f.run(t, chromedp015guard.Guard(f.w, chromedp.Tasks{chromedp.WaitReady("body", chromedp.ByQuery), tt.step}))
		var te *chromedp015guard.TimeoutError
		require.ErrorAs(t, err, &te, "%v", err)
		assert.Equal(t, tt.want, te.Step)
	}
}
