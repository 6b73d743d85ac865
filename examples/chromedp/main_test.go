package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/testctx"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// within returns a context that ends after d or when t ends, with no
// deadline of its own, as main's: each call keeps evalTimeout.
func within(t *testing.T, d time.Duration) context.Context {
	return testctx.Within(t, context.Background(), d)
}

// open sets up a tab as run does, on a browser of the test's own (a loop
// holds its renderer, which Chrome may share among tabs): it serves the
// page, launches Chromium and watches the tab with the page loaded.
// Everything ends when t does.
func open(t *testing.T) (ctx context.Context, w *chromedpguard.Watcher, url string) {
	t.Helper()
	srv, err := serve()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	ctx, stop, err := launch(within(t, time.Minute))
	require.NoError(t, err)
	t.Cleanup(stop)
	w, err = watch(ctx, srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	return ctx, w, srv.URL + "/"
}

// eval evaluates js on w and decodes its result into a T.
func eval[T any](t *testing.T, ctx context.Context, w *chromedpguard.Watcher, js string) T {
	t.Helper()
	res, err := w.Eval(ctx, js)
	require.NoError(t, err)
	var v T
	require.NoError(t, json.Unmarshal(res.Value, &v))
	return v
}

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	start := time.Now()
	err := run(within(t, time.Minute), &out)
	t.Logf("run took %v:\n%s", time.Since(start).Round(time.Millisecond), &out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "cause: "+chromedpguard.TimeoutBusyScript.String())
}

func TestRunawayScriptTimesOutAndIsStopped(t *testing.T) {
	t.Parallel()
	ctx, w, _ := open(t)
	assert.Equal(t, "Orders", eval[string](t, ctx, w, `() => document.title`))

	start := time.Now()
	_, err := w.Eval(ctx, `() => { while (true) {} }`)
	t.Logf("%v after %v", err, time.Since(start).Round(time.Millisecond))
	require.ErrorIs(t, err, chromedpguard.ErrEvalTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var te *chromedpguard.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, chromedpguard.TimeoutBusyScript, te.Cause)
	assert.Equal(t, evalTimeout, te.Limit, "the eval's own deadline, not the test's")

	assert.Equal(t, 2, eval[int](t, ctx, w, `() => 1 + 1`), "TerminateOnTimeout stopped the loop")
}

func TestCrashIsRefusedUntilReload(t *testing.T) {
	t.Parallel()
	ctx, w, url := open(t)
	require.NoError(t, crash(ctx, w))

	start := time.Now()
	_, err := w.Eval(ctx, `() => document.title`)
	t.Logf("%v after %v", err, time.Since(start).Round(time.Microsecond))
	require.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
	var be *chromedpguard.BlockedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, url, be.URL)

	require.NoError(t, w.Reload(ctx))
	assert.Equal(t, url, eval[string](t, ctx, w, `() => location.href`), "the tab answers as soon as Reload returns")
}
