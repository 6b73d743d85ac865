package chromedpguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultrows"
)

func TestNavigate(t *testing.T) {
	t.Parallel()
	again := ": navigate again (Watcher.Navigate)"
	tests := []struct {
		name string
		url  func(f *fixture) string
		opts chromedpguard.Options
		want error
		msg  string
	}{
		{"healthy page", func(f *fixture) string { return f.srv.URL + "/" }, chromedpguard.Options{}, nil, ""},
		{"unresolvable host", func(*fixture) string { return "http://nonexistent.invalid/" }, chromedpguard.Options{},
			chromedpguard.ErrNoDocument, "tab has no document: net::ERR_NAME_NOT_RESOLVED loading http://nonexistent.invalid/" + again},
		{"server never answers", func(f *fixture) string { return f.srv.URL + "/stall" },
			chromedpguard.Options{EvalTimeout: 600 * time.Millisecond}, chromedpguard.ErrEvalTimeout,
			"/stall timed out after 600ms (tab still loading http://127.0.0.1:"},
		{"blocked by the URL policy", func(*fixture) string { return "file:///etc/passwd" },
			chromedpguard.Options{URLs: &chromedpguard.URLPolicy{}}, chromedpguard.ErrURLBlocked, "file: scheme is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, "/", &tt.opts)
			before := f.w.State().URL
			start := time.Now()
			err := f.w.Navigate(within(t, 20*time.Second), tt.url(f))
			elapsed := time.Since(start)
			t.Logf("%v in %v", err, elapsed.Round(time.Millisecond))
			if tt.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.want)
				assert.Contains(t, err.Error(), tt.msg)
			}
			if tt.want == chromedpguard.ErrEvalTimeout {
				assert.Contains(t, err.Error(), ": loading stopped)")
				var te *chromedpguard.TimeoutError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, tt.opts.EvalTimeout, te.Limit, "the Navigate's own deadline, not the test's")
				assert.Equal(t, chromedpguard.TimeoutLoading, te.Cause)
				assert.Equal(t, before, f.w.State().URL, "the tab keeps its page")
			}
			// The tab answers at once, or recovers with Navigate.
			if tt.want == chromedpguard.ErrNoDocument {
				_, err := f.w.Eval(within(t, 5*time.Second), `() => 1`)
				require.ErrorIs(t, err, chromedpguard.ErrNoDocument, "refused up front")
				require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL))
			}
			res, err := f.w.Eval(within(t, 5*time.Second), `() => 6 * 7`)
			require.NoError(t, err, "eval right after")
			assert.Equal(t, "42", string(res.Value))
		})
	}
}

// A recovery made by any call on the tab's session shows in the very next
// eval, with no wait: chromedp applies a tab's events before the reply that
// follows them, so no refusal after a recovery is stale.
func TestRecoveryNextEvalWorks(t *testing.T) {
	t.Parallel()
	cycles := faultrows.RecoveryCycles()
	recoveries := []struct {
		name    string
		fault   func(t *testing.T, f *fixture)
		recover func(t *testing.T, f *fixture)
	}{
		{"crash + Watcher.Reload", crashTab, func(t *testing.T, f *fixture) {
			require.NoError(t, f.w.Reload(within(t, 10*time.Second)))
		}},
		{"crash + chromedp Page.reload", crashTab, func(t *testing.T, f *fixture) {
			_, err := chromedp.Call(f.tabWithin(t, 10*time.Second), page.Reload, page.ReloadParams{})
			require.NoError(t, err)
		}},
		{"crash + chromedp.Navigate", crashTab, func(t *testing.T, f *fixture) {
			require.NoError(t, chromedp.Do(f.tabWithin(t, 10*time.Second), chromedp.Navigate(f.srv.URL)))
		}},
		{"no document + Watcher.Navigate", func(t *testing.T, f *fixture) {
			require.ErrorIs(t, f.w.Navigate(within(t, 10*time.Second), deadURL(t)), chromedpguard.ErrNoDocument)
		}, func(t *testing.T, f *fixture) {
			require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL))
		}},
		{"alert + chromedp Page.handleJavaScriptDialog", func(t *testing.T, f *fixture) {
			f.runJS(t, `setTimeout(() => alert("x"), 0)`)
			eventually(t, "the alert", func() bool { return f.w.State().DialogOpen })
		}, func(t *testing.T, f *fixture) {
			_, err := chromedp.Call(f.tabWithin(t, 10*time.Second), page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			require.NoError(t, err)
		}},
	}
	for _, rc := range recoveries {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, nil, "/", nil)
			stale := 0
			for range cycles {
				rc.fault(t, f)
				require.Error(t, f.w.Blocked(within(t, 5*time.Second)), "the watcher saw the fault")
				rc.recover(t, f)
				if _, err := f.w.Eval(within(t, 10*time.Second), `() => 1`); err != nil {
					stale++
					t.Logf("stale: %v", err)
				}
			}
			assert.Zero(t, stale, "stale refusals in %d cycles", cycles)
		})
	}
}

// TestFailedNavigateShowsAtOnce is the other side of recovery: once
// Watcher.Navigate has returned a failed load, the next eval is refused with
// it, with no wait in between, even if Chrome reports the failure's event
// after its reply.
func TestFailedNavigateShowsAtOnce(t *testing.T) {
	t.Parallel()
	cycles := faultrows.RecoveryCycles()
	f := newFixture(t, nil, "/", nil)
	late := 0
	for i := range cycles {
		require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL), "cycle %d: navigate home", i)
		require.ErrorIs(t, f.w.Navigate(within(t, 10*time.Second), deadURL(t)), chromedpguard.ErrNoDocument, "cycle %d", i)
		if _, err := f.w.Eval(within(t, 10*time.Second), `() => 1`); !errors.Is(err, chromedpguard.ErrNoDocument) {
			late++
			t.Logf("cycle %d: the eval after the failed load got %v", i, err)
		}
	}
	assert.Zero(t, late, "evals that missed the failed load in %d cycles", cycles)
}

func TestHandleDialogNoDialog(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	require.ErrorIs(t, f.w.HandleDialog(within(t, 5*time.Second), true, ""), chromedpguard.ErrNoDialog)
}

func TestWait(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "-", nil)
	require.NoError(t, f.w.Navigate(within(t, 10*time.Second), f.srv.URL))
	s, err := f.w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return s.Loaded })
	require.NoError(t, err)
	assert.Equal(t, f.srv.URL+"/", s.URL)
	// A crash ends a wait for something else.
	cctx, cancel := context.WithTimeout(f.tab, 300*time.Millisecond)
	defer cancel()
	go func() { _, _ = chromedp.Call(cctx, page.Crash, cdp.Empty{}) }()
	_, err = f.w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return false })
	require.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
}

func crashTab(t *testing.T, f *fixture) { f.crash(t) }
