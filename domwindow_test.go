package tabguard_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// readAll reads a whole snapshot in windows of max bytes.
func readAll(t *testing.T, w *tabguard.Watcher, opts tabguard.DOMOptions) (string, []tabguard.DOMWindow) {
	t.Helper()
	ctx := testbrowser.Context(t, time.Minute)
	var b strings.Builder
	var wins []tabguard.DOMWindow
	for {
		win, err := w.ReadDOM(ctx, opts)
		require.NoError(t, err)
		require.Equal(t, b.Len(), win.Offset, "windows join up")
		require.True(t, utf8.ValidString(win.Content), "window %d cut inside a character", len(wins))
		require.LessOrEqual(t, len(win.Content), max(opts.MaxBytes, 1))
		b.WriteString(win.Content)
		wins = append(wins, win)
		if win.NextOffset == 0 {
			return b.String(), wins
		}
		require.Equal(t, win.Offset+len(win.Content), win.NextOffset)
		require.NotEmpty(t, win.Notice(opts.MaxBytes))
		opts.Snapshot, opts.Offset = win.Snapshot, win.NextOffset
	}
}

func TestReadDOMWindows(t *testing.T) {
	t.Parallel()
	page := loadedPage(t, serve(t))
	ctx := testbrowser.Context(t, time.Minute)
	require.NoError(t, navigate(t, page, serve(t).URL+"/big?kb=300"))
	require.NoError(t, page.Context(ctx).WaitLoad())
	w := watch(t, page, &tabguard.Options{EvalTimeout: 20 * time.Second})
	full, err := page.Context(ctx).Eval(`() => document.documentElement.outerHTML`)
	require.NoError(t, err)
	want := full.Value.Str()

	for _, max := range []int{10000, 65536} {
		got, wins := readAll(t, w, tabguard.DOMOptions{MaxBytes: max})
		assert.Equal(t, len(want), len(got), "max %d", max)
		assert.True(t, got == want, "max %d: the windows do not join up to the page", max)
		assert.Equal(t, -1, wins[0].Size, "the first window of non-ASCII text leaves the count to the page")
		for _, win := range wins[1:] {
			assert.Equal(t, len(want), win.Size, "Size is exact in UTF-8 bytes")
		}
		for _, win := range wins {
			assert.Equal(t, wins[0].Snapshot, win.Snapshot, "one snapshot")
		}
		// Read to the end, the snapshot is released.
		_, err := w.ReadDOM(ctx, tabguard.DOMOptions{Snapshot: wins[0].Snapshot, Offset: wins[1].Offset, MaxBytes: max})
		require.ErrorIs(t, err, tabguard.ErrSnapshotGone)
	}

	// A small window on multi-byte text moves on a character at a time,
	// to the end: 1 to 4-byte runes and a ZWJ sequence, three times over
	// (a paragraph of the page is a hundred times over, a thousand reads).
	_, err = w.Eval(ctx, `() => {
		const p = document.createElement("p");
		p.id = "runes";
		p.textContent = "héllo wörld 日本語 👩‍💻 ".repeat(3);
		document.body.append(p);
	}`)
	require.NoError(t, err)
	got, _ := readAll(t, w, tabguard.DOMOptions{MaxBytes: 4, Selector: "#runes", Text: true})
	text, err := page.Context(ctx).Eval(`() => document.querySelector("#runes").innerText`)
	require.NoError(t, err)
	assert.Equal(t, text.Value.Str(), got)
	assert.Contains(t, got, "👩‍💻")
}

func TestReadDOMSnapshotHoldsWhileThePageChanges(t *testing.T) {
	t.Parallel()
	w := watch(t, loadedPage(t, serve(t)), nil)
	ctx := testbrowser.Context(t, 30*time.Second)
	win, err := w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 20})
	require.NoError(t, err)
	assert.False(t, win.Changed)
	_, err = w.Eval(ctx, `() => { document.body.innerHTML = "<p>changed</p>" }`)
	require.NoError(t, err)
	rest, err := w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 1000, Snapshot: win.Snapshot, Offset: win.NextOffset})
	require.NoError(t, err)
	assert.True(t, rest.Changed, "the page changed since the snapshot")
	assert.Contains(t, win.Content+rest.Content, "héllo", "the windows come from the snapshot, not the changed page")
	assert.NotContains(t, rest.Content, "changed")
}

func TestReadDOMScopes(t *testing.T) {
	t.Parallel()
	w := watch(t, loadedPage(t, serve(t)), nil)
	ctx := testbrowser.Context(t, 30*time.Second)
	win, err := w.ReadDOM(ctx, tabguard.DOMOptions{Selector: "p"})
	require.NoError(t, err)
	assert.Equal(t, "<p>héllo</p>", win.Content)
	assert.Equal(t, len("<p>héllo</p>"), win.Size)
	assert.Zero(t, win.NextOffset)

	win, err = w.ReadDOM(ctx, tabguard.DOMOptions{Text: true})
	require.NoError(t, err)
	assert.Equal(t, "héllo", win.Content)

	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{Selector: "table.orders"})
	require.ErrorIs(t, err, tabguard.ErrNoMatch)
	assert.Equal(t, `selector matches nothing: "table.orders"`, err.Error())
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{Selector: "p[["})
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	assert.Contains(t, err.Error(), `selector "p[["`)
}

func TestReadDOMGoneAndBounded(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	w := watch(t, loadedPage(t, srv), nil)
	ctx := testbrowser.Context(t, 30*time.Second)
	// Forgotten snapshots are dropped, the oldest first: three are kept.
	var ids []string
	for range 5 {
		win, err := w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8})
		require.NoError(t, err)
		ids = append(ids, win.Snapshot)
	}
	kept, err := w.Eval(ctx, `() => globalThis[Symbol.for("tabguard.dom")].snaps.size`)
	require.NoError(t, err)
	assert.Equal(t, 3, kept.Value.Int())
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8, Snapshot: ids[0], Offset: 8})
	require.ErrorIs(t, err, tabguard.ErrSnapshotGone)
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8, Snapshot: ids[4], Offset: 8})
	require.NoError(t, err)

	// A navigation takes the snapshots with the document.
	require.NoError(t, w.Navigate(ctx, srv.URL+"/?again"))
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8, Snapshot: ids[4], Offset: 16})
	require.ErrorIs(t, err, tabguard.ErrSnapshotGone)
	assert.Contains(t, err.Error(), "read again from offset 0 without a snapshot")
	// Navigate returns at the commit; the offsets below are those of the
	// whole document, parsed.
	_, err = w.Wait(ctx, func(s tabguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)

	for _, bad := range []tabguard.DOMOptions{{MaxBytes: -1}, {MaxBytes: 3}, {Offset: -2, Snapshot: "s1"}, {Offset: 5}} {
		_, err := w.ReadDOM(ctx, bad)
		assert.ErrorIs(t, err, tabguard.ErrInvalidArgument, "%+v", bad)
	}
	win, err := w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8})
	require.NoError(t, err)
	inside := len("<html><head><title>ok</title></head><body><p>h") + 1 // the second byte of "é"
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8, Snapshot: win.Snapshot, Offset: inside})
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "is not where a character starts")
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8, Snapshot: win.Snapshot, Offset: inside - 1})
	require.NoError(t, err, "random access to a character boundary")
	_, err = w.ReadDOM(ctx, tabguard.DOMOptions{MaxBytes: 8, Snapshot: win.Snapshot, Offset: 1 << 20})
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
}
