package chromedpguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

// outcome is what one call returned, and how long it took from a moment
// the row chose: the start of the call, or the injection of the fault.
type outcome struct {
	res     *runtime.RemoteObject
	err     error
	elapsed time.Duration
}

// shared is the outcome as faultrows.Check takes it.
func (o outcome) shared() faultrows.Outcome {
	got := faultrows.Outcome{Err: o.err, Elapsed: o.elapsed}
	if o.res != nil {
		got.Result = string(o.res.Value)
	}
	return got
}

// eval runs js on f's watcher and times it from its start.
func (f *fixture) eval(t *testing.T, js string) outcome {
	t.Helper()
	start := time.Now()
	res, err := f.w.Eval(within(t, 30*time.Second), js)
	return outcome{res, err, time.Since(start)}
}

// navigate sends Page.navigate on the tab, bypassing the watcher, as rod's
// Navigate does: it returns at the commit, or with Chrome's error text. (A
// chromedp.Navigate also waits for the load event.)
func (f *fixture) navigate(t *testing.T, ctx context.Context, url string) error {
	t.Helper()
	res, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: url})
	if err == nil && res.ErrorText != "" {
		err = errors.New(res.ErrorText)
	}
	return err
}

// waitLoaded waits until the page has loaded, asking the page with plain
// chromedp as rod's WaitLoad does: the fault, not the watcher, is under test.
func (f *fixture) waitLoaded(t *testing.T) {
	t.Helper()
	// Chrome takes seconds to load the 5 MB page on a busy machine.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(f.tab, 2*time.Second)
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState`))
		cancel()
		if err == nil && state == "complete" {
			return
		}
		require.True(t, time.Now().Before(deadline), "page not loaded after 30s: %q, %v", state, err)
	}
}

// waitBlocked waits until f's watcher refuses evals with reason.
func (f *fixture) waitBlocked(t *testing.T, reason error) {
	t.Helper()
	eventually(t, "a refusal with "+reason.Error(), func() bool {
		return errors.Is(f.w.Blocked(within(t, 5*time.Second)), reason)
	})
}

// browserWithin is within for browser-level chromedp calls: derived from
// the browser's context.
func (f *fixture) browserWithin(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(f.browser, d)
	t.Cleanup(cancel)
	return ctx
}

// crashReported listens for Chrome's crash report of f's tab and returns a
// func that waits for it. In-flight rows time the eval from the report,
// so the time measures tabguard, not how long Chrome takes to notice.
func (f *fixture) crashReported(t *testing.T) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(f.browser)
	t.Cleanup(cancel)
	seen := make(chan struct{}, 1)
	id := f.w.TargetID()
	require.NoError(t, chromedp.ListenBrowser(ctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCrashed); ok && e.TargetID == id {
			select {
			case seen <- struct{}{}:
			default:
			}
		}
	}))
	return func() {
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			t.Fatal("Chrome reported no crash within 10s")
		}
	}
}

// killRenderers SIGKILLs every renderer process of f's browser, which
// should hold only the row's tab.
func (f *fixture) killRenderers(t *testing.T) int {
	t.Helper()
	n, err := faultrows.KillRenderers(chromedp.FromContext(f.browser).Browser.Process().Pid)
	if errors.Is(err, faultrows.ErrNoProcfs) {
		t.Skip("this row needs Linux procfs: ", err)
	}
	require.NoError(t, err)
	return n
}

// otherSession attaches a second chromedp session to f's tab, as another
// client (DevTools, a second program) would, and detaches it, leaving the
// tab open, when t ends.
func (f *fixture) otherSession(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(f.browser, chromedp.WithTargetID(f.w.TargetID()),
		chromedp.WithDetachOnCancel())
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx), "attach a second session")
	return ctx
}

// openTab opens a new tab at f's server on f's browser and watches it.
func (f *fixture) openTab(t *testing.T) *chromedpguard.Watcher {
	t.Helper()
	w := watch(t, newTab(t, f.browser), nil)
	require.NoError(t, w.Navigate(within(t, 10*time.Second), f.srv.URL))
	return w
}

// attachWithin attaches chromedp to the tab of ctx, a context from
// chromedp.WithTargetID, failing t when that takes longer than d: chromedp
// waits for the renderer to answer Runtime.enable, and the first Run's
// context must have no deadline, since the tab lives as long as it.
func attachWithin(t *testing.T, ctx context.Context, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	select {
	case err := <-done:
		require.NoError(t, err, "attach")
	case <-time.After(d):
		t.Fatalf("chromedp did not attach to the tab within %v", d)
	}
}
