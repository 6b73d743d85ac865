package tabguard_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
)

func TestEvalWithTimeout(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	release := make(chan struct{}) // frees evals that ignore their context
	t.Cleanup(func() { close(release) })

	tests := []struct {
		name    string
		timeout time.Duration
		eval    func(context.Context) (int, error)
		want    int
		wantErr []error // each must match with errors.Is
		wantMsg string
	}{
		{
			name:    "answers",
			timeout: time.Second,
			eval:    func(context.Context) (int, error) { return 42, nil },
			want:    42,
		},
		{
			name:    "error passes through",
			timeout: time.Second,
			eval:    func(context.Context) (int, error) { return 0, fmt.Errorf("eval: %w", errBoom) },
			wantErr: []error{errBoom},
			wantMsg: "eval: boom",
		},
		{
			name:    "own deadline error before ours passes through",
			timeout: time.Second,
			eval:    func(context.Context) (int, error) { return 0, context.DeadlineExceeded },
			wantErr: []error{context.DeadlineExceeded},
			wantMsg: "context deadline exceeded",
		},
		{
			name:    "ignores its context",
			timeout: 50 * time.Millisecond,
			eval: func(context.Context) (int, error) {
				<-release
				return 1, nil
			},
			wantErr: []error{tabguard.ErrEvalTimeout, context.DeadlineExceeded},
			wantMsg: "eval timed out after 50ms",
		},
		{
			name:    "gives up at our deadline",
			timeout: 50 * time.Millisecond,
			eval: func(ctx context.Context) (int, error) {
				<-ctx.Done()
				return 0, fmt.Errorf("cdp call: %w", ctx.Err())
			},
			wantErr: []error{tabguard.ErrEvalTimeout, context.DeadlineExceeded},
			wantMsg: "eval timed out after 50ms",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tabguard.EvalWithTimeout(context.Background(), tt.timeout, tt.eval)
			if len(tt.wantErr) == 0 {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			for _, want := range tt.wantErr {
				assert.ErrorIs(t, err, want)
			}
			assert.EqualError(t, err, tt.wantMsg)
		})
	}
}

func TestEvalWithTimeoutDefault(t *testing.T) {
	t.Parallel()
	for _, timeout := range []time.Duration{0, -time.Second} {
		var left time.Duration
		_, err := tabguard.EvalWithTimeout(context.Background(), timeout, func(ctx context.Context) (struct{}, error) {
			deadline, ok := ctx.Deadline()
			require.True(t, ok, "eval context has no deadline")
			left = time.Until(deadline)
			return struct{}{}, nil
		})
		require.NoError(t, err)
		assert.InDelta(t, tabguard.DefaultEvalTimeout, left, float64(time.Second), "timeout %v", timeout)
	}
}

func TestEvalWithTimeoutParentDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := tabguard.EvalWithTimeout(ctx, time.Minute, func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, tabguard.ErrEvalTimeout, "it answered when the parent ended, not at its own deadline a minute on")

	release := make(chan struct{})
	defer close(release)
	_, err = tabguard.EvalWithTimeout(ctx, time.Minute, func(context.Context) (int, error) {
		<-release // ignores its context, yet the cancelled parent must still answer
		return 0, nil
	})
	require.ErrorIs(t, err, context.Canceled)
}

func TestEvalWithTimeoutNilEval(t *testing.T) {
	t.Parallel()
	_, err := tabguard.EvalWithTimeout[int](context.Background(), time.Second, nil)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
}
