package tabguard_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestDoValue: DoValue answers fn's value through Do's guard, and Do's
// errors with the zero value, even where fn returned one.
func TestDoValue(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, &tabguard.Options{EvalTimeout: 2 * time.Second})
	ctx := testbrowser.Context(t, 30*time.Second)

	title, err := tabguard.DoValue(ctx, w, func(p *rod.Page) (string, error) {
		info, err := p.Info()
		if err != nil {
			return "", err
		}
		return info.Title, nil
	})
	require.NoError(t, err)
	assert.Equal(t, "ok", title)

	_, err = tabguard.DoValue[int](ctx, w, nil)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument, "a nil func, as Do answers it")

	errMine := errors.New("mine")
	n, err := tabguard.DoValue(ctx, w, func(*rod.Page) (int, error) { return 7, errMine })
	require.ErrorIs(t, err, errMine, "fn's own error")
	assert.Zero(t, n)

	// fn ignores the cut at the limit and answers a value: still no success.
	late, err := tabguard.DoValue(ctx, w, func(p *rod.Page) (string, error) {
		_, _ = proto.RuntimeEvaluate{Expression: "new Promise(() => {})", AwaitPromise: true}.Call(p)
		return "late", nil
	})
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te, "the call cut short at Options.EvalTimeout")
	assert.Empty(t, late)

	crash(t, page)
	eventually(t, "the crash is known", blockedBy(t, w, tabguard.ErrTabCrashed))
	calls := 0
	n, err = tabguard.DoValue(ctx, w, func(*rod.Page) (int, error) { calls++; return 1, nil })
	require.ErrorIs(t, err, tabguard.ErrTabCrashed, "refused up front")
	assert.Zero(t, n)
	assert.Zero(t, calls, "a refused tab must not be touched")
}
