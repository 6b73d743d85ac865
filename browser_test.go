package tabguard_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// watchBrowser starts a BrowserWatcher on b and closes it when t ends.
func watchBrowser(t testing.TB, b *rod.Browser, opts *tabguard.Options) *tabguard.BrowserWatcher {
	t.Helper()
	bw, err := tabguard.WatchBrowser(b, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bw.Close() })
	return bw
}

// manyTabs is how many tabs TestBrowserWatcherManyTabs watches, in a
// browser of manyTabsRenderers renderer processes. BenchmarkScale holds the
// costs at 200 tabs; this test holds what does not need as many.
const (
	manyTabs          = 20
	manyTabsRenderers = 4
)

// TestBrowserWatcherManyTabs watches 20 tabs through one BrowserWatcher:
// the goroutines it adds do not grow with the tabs, and a crash is
// reported on exactly the tabs Chrome reports it for. The tabs share a few
// renderers, as they do in a browser with many tabs open, so one crash
// takes several tabs with it and leaves the others alone.
func TestBrowserWatcherManyTabs(t *testing.T) {
	t.Parallel()
	b, err := testbrowser.LaunchRenderers(manyTabsRenderers)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	srv := serve(t)
	ctx := testbrowser.Context(t, 3*time.Minute)
	pages := make([]*rod.Page, manyTabs)
	for i := range pages {
		target, err := proto.TargetCreateTarget{URL: srv.URL + "/?tab=" + fmt.Sprint(i)}.Call(b.Context(ctx))
		require.NoError(t, err)
		pages[i], err = b.PageFromTarget(target.TargetID)
		require.NoError(t, err)
	}
	// Other tests run in parallel: only goroutines started under this
	// test's label, and those they start, are counted.
	var bw *tabguard.BrowserWatcher
	ws := make([]*tabguard.Watcher, manyTabs)
	var added int
	pprof.Do(context.Background(), pprof.Labels("test", t.Name()), func(context.Context) {
		bw = watchBrowser(t, b.Browser, nil)
		before := labeledGoroutines(t, t.Name())
		require.Positive(t, before, "the BrowserWatcher's own goroutines carry the label")
		for i, p := range pages {
			var err error
			ws[i], err = bw.Watch(p)
			require.NoError(t, err)
		}
		time.Sleep(500 * time.Millisecond) // let anything a Watch started finish
		added = labeledGoroutines(t, t.Name()) - before
	})
	t.Logf("goroutines added by watching %d tabs: %d", manyTabs, added)
	assert.LessOrEqual(t, added, 5, "goroutines must not grow with the tabs")
	assert.Len(t, bw.Tabs(), manyTabs)

	// Several tabs share each renderer; the watcher must report the crash
	// on exactly the tabs Chrome reports it for.
	reported := map[proto.TargetTargetID]bool{}
	var mu sync.Mutex
	lctx, stopListening := context.WithCancel(ctx)
	listen := b.Context(lctx).EachEvent(func(e *proto.TargetTargetCrashed) {
		mu.Lock()
		defer mu.Unlock()
		reported[e.TargetID] = true
	})
	listening := make(chan struct{})
	go func() { defer close(listening); listen() }()
	defer func() { stopListening(); <-listening }()
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_ = proto.PageCrash{}.Call(pages[7].Context(cctx))
	cancel()
	s, err := ws[7].Wait(ctx, func(s tabguard.TabState) bool { return s.CrashReason != "" })
	require.NoError(t, err)
	assert.Equal(t, "crashed", s.CrashReason)
	// Chrome reports the crash once for each tab of the renderer, to the
	// test and to the watcher alike: wait until the two agree, twice in a
	// row, so that no report of the burst is still on its way.
	agree := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for i, w := range ws {
			if errors.Is(w.Blocked(ctx), tabguard.ErrTabCrashed) != reported[pages[i].TargetID] {
				return false
			}
		}
		return true
	}
	eventually(t, "the watcher and Chrome to agree on the crashed tabs", func() bool {
		if !agree() {
			return false
		}
		time.Sleep(100 * time.Millisecond)
		return agree()
	})
	mu.Lock()
	defer mu.Unlock()
	t.Logf("Chrome reported the crash for %d of %d tabs", len(reported), manyTabs)
	assert.Greater(t, len(reported), 1, "the crashed renderer held other tabs")
	assert.Less(t, len(reported), manyTabs, "other renderers held the other tabs")
	for i, w := range ws {
		err := w.Blocked(ctx)
		if reported[pages[i].TargetID] {
			assert.ErrorIs(t, err, tabguard.ErrTabCrashed, "tab %d", i)
		} else {
			assert.NoError(t, err, "tab %d", i)
		}
	}
}

// labeledGoroutines counts the goroutines whose pprof label "test" is name.
func labeledGoroutines(t testing.TB, name string) int {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, pprof.Lookup("goroutine").WriteTo(&buf, 1))
	want := fmt.Sprintf(`"test":%q`, name)
	n, count := 0, 0
	for _, line := range strings.Split(buf.String(), "\n") {
		switch {
		case strings.Contains(line, " @ 0x"): // "N @ 0x...": N goroutines with this stack
			count, _ = strconv.Atoi(strings.Fields(line)[0])
		case strings.HasPrefix(line, "# labels: ") && strings.Contains(line, want):
			n += count
		}
	}
	return n
}

// A consumer that never reads Changes holds nothing up: evals go on, the
// channel keeps 256 changes, and the next change read counts the rest.
func TestBrowserWatcherSlowConsumer(t *testing.T) {
	faultrows.SlowRow(t, "internal/engine's TestChangesCountWhatTheyDrop")
	t.Parallel()
	// One renderer for every tab: the test opens 150, and starting a
	// renderer for each is most of what they cost.
	b, err := testbrowser.LaunchRenderers(1)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	srv := serve(t)
	page := testbrowser.NewPage(t, b)
	require.NoError(t, navigate(t, page, srv.URL))
	bw := watchBrowser(t, b.Browser, nil) // after the page: it opens no change
	w, err := bw.Watch(page)
	require.NoError(t, err)
	ctx := testbrowser.Context(t, 2*time.Minute)

	const tabs = 150 // each opens and closes: 300 changes, over the 256 kept
	base := len(bw.Tabs())
	for range tabs {
		target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(b.Context(ctx))
		require.NoError(t, err)
		// An intake held up by the full channel would hold the eval past
		// its own deadline.
		_, err = w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
		require.NoError(t, err, "an eval while nobody reads the changes")
		_, err = proto.TargetCloseTarget{TargetID: target.TargetID}.Call(b.Context(ctx))
		require.NoError(t, err)
	}
	// Chrome answers Target.closeTarget before the tab is gone: once the
	// list is back to what it was, every close has been reported or counted.
	eventually(t, "the tabs to close", func() bool { return len(bw.Tabs()) == base })
	delivered, missed := 0, 0
	var seen []string // each delivered change, for a failure's message
	for {
		select {
		case c := <-bw.Changes():
			delivered++
			missed += c.Missed
			seen = append(seen, fmt.Sprintf("%v %s %q missed=%d", c.Kind, c.Tab.TargetID, c.Tab.URL, c.Missed))
			continue
		default:
		}
		break
	}
	// One more change brings the count of what was dropped, if no late
	// change of the last close did already.
	target, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(b.Context(ctx))
	require.NoError(t, err)
	for {
		var c tabguard.TabChange
		select {
		case c = <-bw.Changes():
		case <-ctx.Done():
			t.Fatal("no change for the last tab")
		}
		delivered++
		missed += c.Missed
		seen = append(seen, fmt.Sprintf("%v %s %q missed=%d", c.Kind, c.Tab.TargetID, c.Tab.URL, c.Missed))
		if c.Kind == tabguard.TabOpened && c.Tab.TargetID == target.TargetID {
			break
		}
	}
	t.Logf("delivered %d changes, missed %d", delivered, missed)
	assert.Positive(t, missed, "a full channel drops changes")
	if !assert.Equal(t, 2*tabs+1, delivered+missed, "every change is delivered or counted") {
		t.Logf("delivered:\n%s", strings.Join(seen, "\n"))
	}
}

// Closing the BrowserWatcher ends every call in flight on every tab.
func TestBrowserWatcherCloseInFlight(t *testing.T) {
	t.Parallel()
	b := testbrowser.Shared(t)
	srv := serve(t)
	bw, err := tabguard.WatchBrowser(b.Browser, &tabguard.Options{EvalTimeout: time.Minute})
	require.NoError(t, err)
	defer bw.Close()
	const tabs = 4
	done := make(chan error, tabs)
	for range tabs {
		w, err := bw.Watch(loadedPage(t, srv))
		require.NoError(t, err)
		go func() {
			_, err := w.Eval(testbrowser.Context(t, time.Minute), `() => new Promise(() => {})`)
			done <- err
		}()
	}
	time.Sleep(300 * time.Millisecond) // let the evals reach their pages
	require.NoError(t, bw.Close())
	for range tabs {
		select {
		case err := <-done:
			assert.ErrorIs(t, err, tabguard.ErrWatcherClosed)
		case <-time.After(5 * time.Second):
			t.Fatal("an eval still in flight 5s after Close")
		}
	}
	for range bw.Changes() { // Close closed it: the loop ends after what it holds
	}
}

// Watching a page twice through one BrowserWatcher is refused.
func TestBrowserWatcherWatchTwice(t *testing.T) {
	t.Parallel()
	page := testbrowser.Page(t)
	bw := watchBrowser(t, page.Browser(), nil)
	w, err := bw.Watch(page)
	require.NoError(t, err)
	defer w.Close()
	_, err = bw.Watch(page)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	_, err = tabguard.WatchBrowser(nil, nil)
	require.ErrorIs(t, err, tabguard.ErrInvalidArgument)
	require.NoError(t, bw.Close())
	_, err = bw.Watch(testbrowser.Page(t))
	require.ErrorIs(t, err, tabguard.ErrWatcherClosed)
}

// tabRow is what TestBrowserWatcherTabs compares of a TabInfo.
type tabRow struct {
	ID, Opener       proto.TargetTargetID
	Watched, Crashed bool
}

func tabRows(infos []tabguard.TabInfo) []tabRow {
	rows := make([]tabRow, len(infos))
	for i, ti := range infos {
		rows[i] = tabRow{ti.TargetID, ti.OpenerID, ti.Watched, ti.State.Crashed}
	}
	return rows
}

// nextChange returns the next change of kind for target id, skipping others.
func nextChange(t *testing.T, bw *tabguard.BrowserWatcher, kind tabguard.TabChangeKind, id proto.TargetTargetID) tabguard.TabChange {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-bw.Changes():
			if c.Kind == kind && (id == "" || c.Tab.TargetID == id) {
				return c
			}
		case <-timeout:
			t.Fatalf("no %v for %s within 10s", kind, id)
		}
	}
}

// TestBrowserWatcherTabs follows the list of tabs through popups, crashes
// and closes. rod's launcher turns site isolation off, so a popup that
// keeps its opener shares the opener's renderer: a crash of that renderer
// is reported on both. A noopener popup has a renderer of its own.
func TestBrowserWatcherTabs(t *testing.T) {
	t.Parallel()
	b := dedicated(t)
	srv := serve(t)
	ctx := testbrowser.Context(t, time.Minute)
	opener := testbrowser.NewPage(t, b)
	require.NoError(t, navigate(t, opener, srv.URL))
	require.NoError(t, opener.Context(ctx).WaitLoad())
	bw := watchBrowser(t, b.Browser, nil)
	before := tabRows(bw.Tabs())
	wOpener, err := bw.Watch(opener)
	require.NoError(t, err)

	open := func(js string) *rod.Page {
		_, err := proto.RuntimeEvaluate{Expression: js, UserGesture: true}.Call(opener.Context(ctx))
		require.NoError(t, err)
		c := nextChange(t, bw, tabguard.TabOpened, "")
		assert.Equal(t, opener.TargetID, c.Tab.OpenerID, "the popup names its opener")
		p, err := b.PageFromTarget(c.Tab.TargetID)
		require.NoError(t, err)
		return p
	}
	shared := open(`window.open("` + srv.URL + `/?popup=shared")`)
	alone := open(`window.open("` + srv.URL + `/?popup=alone", "_blank", "noopener")`)
	wShared, err := bw.Watch(shared)
	require.NoError(t, err)

	want := append(before, // the opener was listed already, now it is watched
		tabRow{shared.TargetID, opener.TargetID, true, false},
		tabRow{alone.TargetID, opener.TargetID, false, false})
	for i := range want {
		if want[i].ID == opener.TargetID {
			want[i].Watched = true
		}
	}
	if diff := cmp.Diff(want, tabRows(bw.Tabs())); diff != "" {
		t.Errorf("Tabs() after the popups (-want +got):\n%s", diff)
	}

	// The noopener popup crashes alone.
	crash(t, alone)
	c := nextChange(t, bw, tabguard.TabCrashed, alone.TargetID)
	assert.False(t, c.Tab.Watched)
	assert.ErrorIs(t, c.Tab.Refusal, tabguard.ErrTabCrashed)
	assert.NoError(t, wOpener.Blocked(ctx))

	// The shared renderer takes the opener with it.
	crash(t, shared)
	nextChange(t, bw, tabguard.TabCrashed, "")
	_, err = wOpener.Wait(ctx, func(s tabguard.TabState) bool { return s.Crashed })
	require.NoError(t, err, "the opener shares the popup's renderer")
	eventually(t, "the shared tab's crash", blockedBy(t, wShared, tabguard.ErrTabCrashed))

	// A reload revives the opener; the unwatched popup, reloaded by rod, is
	// seen alive again from the browser's events alone.
	require.NoError(t, wOpener.Reload(ctx))
	require.NoError(t, proto.PageReload{}.Call(alone.Context(ctx)))
	eventually(t, "the popup to be seen alive", func() bool {
		for _, ti := range bw.Tabs() {
			if ti.TargetID == alone.TargetID {
				return !ti.State.Crashed
			}
		}
		return false
	})

	_, err = proto.TargetCloseTarget{TargetID: alone.TargetID}.Call(b.Context(ctx))
	require.NoError(t, err)
	nextChange(t, bw, tabguard.TabClosed, alone.TargetID)
	for _, ti := range bw.Tabs() {
		assert.NotEqual(t, alone.TargetID, ti.TargetID, "a closed tab is dropped")
	}
}
