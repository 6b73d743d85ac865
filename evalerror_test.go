package tabguard_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestEvalErrorAsRods holds that an exception from Watcher.Eval reads into
// rod's own exception error, as it did when Eval returned rod's. The test
// takes rod's type from an error of rod's Page.Eval, since it is named
// *rod.ErrEval up to rod v0.114.7 and *rod.EvalError since, and the module
// is tested on both.
func TestEvalErrorAsRods(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 10*time.Second)
	const boom = `() => { throw new Error("boom") }`
	_, rodErr := page.Context(ctx).Eval(boom)
	require.Error(t, rodErr)
	_, err := w.Eval(ctx, boom)
	err = fmt.Errorf("wrapped: %w", err)

	var ee *tabguard.EvalError
	require.ErrorAs(t, err, &ee)
	require.NotNil(t, ee.Exception)
	assert.Contains(t, ee.Exception.Description, "boom")
	assert.Contains(t, err.Error(), "eval js error: Error: boom")

	target := reflect.New(reflect.TypeOf(rodErr))
	require.True(t, errors.As(err, target.Interface()), "errors.As into %T", rodErr)
	asRod := target.Elem()
	assert.Same(t, ee.RuntimeExceptionDetails, asRod.Elem().Field(0).Interface(), "the details are the eval's")
	assert.Equal(t, ee.Error(), asRod.Interface().(error).Error(), "rod's Error reads as EvalError's")
	assert.ErrorIs(t, err, rodErr, "errors.Is with rod's type, as rod's Is does")
	assert.ErrorIs(t, err, &tabguard.EvalError{})

	var ce *cdp.Error
	assert.False(t, errors.As(err, &ce), "no other error type is filled")
	var ll *lookalike
	assert.False(t, errors.As(err, &ll), "only rod's type is filled")
}

// lookalike has the shape of rod's exception error in another package.
type lookalike struct{ *proto.RuntimeExceptionDetails }

func (*lookalike) Error() string { return "lookalike" }

func TestEvalErrorError(t *testing.T) {
	tests := []struct {
		name string
		err  *tabguard.EvalError
		want string
	}{
		{"no details", &tabguard.EvalError{}, "eval js error"},
		{"no thrown value", &tabguard.EvalError{RuntimeExceptionDetails: &proto.RuntimeExceptionDetails{Text: "Uncaught"}}, "eval js error: Uncaught"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q; want %q", got, tt.want)
			}
		})
	}
}
