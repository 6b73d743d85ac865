package tabguard_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

func TestWatcherDOM(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	page := testbrowser.Page(t)
	require.NoError(t, navigate(t, page, srv.URL+"/big?kb=300"))
	ctx := testbrowser.Context(t, 30*time.Second)
	require.NoError(t, page.Context(ctx).WaitLoad())
	w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})

	// The reference: the whole outerHTML read over the socket, cut in Go.
	res, err := w.Eval(ctx, `() => document.documentElement.outerHTML`)
	require.NoError(t, err)
	full := res.Value.Str()
	require.Greater(t, len(full), 300<<10)

	caps := []int{0, 1, 2, 3, 1000, 4097, 100_003, len(full) - 1, len(full), len(full) + 1}
	for _, max := range caps {
		dom, err := w.DOM(ctx, max)
		require.NoError(t, err, "max %d", max)
		want, truncated := tabguard.TruncateDOM(full, max)
		assert.Equal(t, len(full), dom.Size, "max %d: Size is not the UTF-8 length", max)
		assert.Equal(t, truncated, dom.Truncated, "max %d", max)
		if dom.HTML != want {
			t.Errorf("DOM(%d).HTML differs from TruncateDOM(outerHTML, %d): got %d bytes ending %q, want %d bytes ending %q",
				max, max, len(dom.HTML), shorten(dom.HTML), len(want), shorten(want))
		}
	}
}

func TestWatcherDOMSmallPage(t *testing.T) {
	t.Parallel()
	w := watch(t, loadedPage(t, serve(t)), nil)
	dom, err := w.DOM(testbrowser.Context(t, 10*time.Second), 0)
	require.NoError(t, err)
	assert.False(t, dom.Truncated)
	assert.Equal(t, `<html><head><title>ok</title></head><body><p>héllo</p></body></html>`, dom.HTML, "no doctype is prepended")
	assert.Equal(t, len(dom.HTML), dom.Size)
}

func TestWatcherDOMAsciiPage(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	w := watch(t, page, nil)
	ctx := testbrowser.Context(t, 10*time.Second)
	_, err := w.Eval(ctx, `() => { document.body.textContent = "x".repeat(200000) }`)
	require.NoError(t, err)
	dom, err := w.DOM(ctx, 0)
	require.NoError(t, err)
	assert.True(t, dom.Truncated)
	assert.Equal(t, 200000+len("<html><head><title>ok</title></head><body></body></html>"), dom.Size)
	assert.Contains(t, dom.HTML, "showing 102400 of ")
}
