package tabguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// recoveryPath is one way a user brings a tab back: fault breaks the tab and
// returns once the watcher refuses it; recover undoes it with one call. The
// eval right after recover must answer: a refusal then is stale.
type recoveryPath struct {
	name    string
	reason  error
	fault   func(t *testing.T, f *fixture)
	recover func(t *testing.T, f *fixture) error
}

// cycles is how many cycles the path runs in the browser:
// faultrows.RecoveryCycles, and faultrows.PromptCycles for a sign-in, whose
// loads answer in milliseconds. Not for an untrusted certificate: measured
// on Chromium 156, Chrome answers a load of a certificate it refused before
// about 3 s later, raw rod's as the watcher's, so 20 cycles would take a
// minute.
func (p recoveryPath) cycles() int {
	switch p.reason {
	case tabguard.ErrSignInRequired:
		return faultrows.PromptCycles()
	}
	return faultrows.RecoveryCycles()
}

func recoveryPaths() []recoveryPath {
	crashTab := func(t *testing.T, f *fixture) { crash(t, f.page) }
	failLoad := func(t *testing.T, f *fixture) { require.Error(t, navigate(t, f.page, testbrowser.DeadURL(t))) }
	openAlert := func(t *testing.T, f *fixture) { f.runJS(t, `setTimeout(() => alert("hi"), 0)`) }
	rodNavigate := func(t *testing.T, f *fixture) error { return navigate(t, f.page, f.srv.URL) }
	ctx := func(t *testing.T) context.Context { return testbrowser.Context(t, 10*time.Second) }
	return []recoveryPath{
		{"crash then rod Navigate", tabguard.ErrTabCrashed, crashTab, rodNavigate},
		{"crash then Page.reload", tabguard.ErrTabCrashed, crashTab, func(t *testing.T, f *fixture) error {
			return proto.PageReload{}.Call(f.page.Context(ctx(t)))
		}},
		{"no document then rod Navigate", tabguard.ErrNoDocument, failLoad, rodNavigate},
		{"alert then Page.handleJavaScriptDialog", tabguard.ErrDialogOpen, openAlert, func(t *testing.T, f *fixture) error {
			return proto.PageHandleJavaScriptDialog{Accept: true}.Call(f.page.Context(ctx(t)))
		}},
		{"crash then Watcher.Navigate", tabguard.ErrTabCrashed, crashTab, func(t *testing.T, f *fixture) error {
			return f.w.Navigate(ctx(t), f.srv.URL)
		}},
		{"crash then Watcher.Reload", tabguard.ErrTabCrashed, crashTab, func(t *testing.T, f *fixture) error {
			return f.w.Reload(ctx(t))
		}},
		{"no document then Watcher.Navigate", tabguard.ErrNoDocument, failLoad, func(t *testing.T, f *fixture) error {
			return f.w.Navigate(ctx(t), f.srv.URL)
		}},
		{"alert then Watcher.HandleDialog", tabguard.ErrDialogOpen, openAlert, func(t *testing.T, f *fixture) error {
			return f.w.HandleDialog(ctx(t), true, "")
		}},
		{"sign-in required then Watcher.Navigate", tabguard.ErrSignInRequired, func(t *testing.T, f *fixture) {
			require.Error(t, navigate(t, f.page, f.srv.URL+faultrows.SignInPath))
		}, func(t *testing.T, f *fixture) error {
			return f.w.Navigate(ctx(t), f.srv.URL)
		}},
		{"untrusted certificate then Watcher.Navigate", tabguard.ErrCertificate, func(t *testing.T, f *fixture) {
			require.Error(t, navigate(t, f.page, faultrows.TLSServer(t, false).URL))
		}, func(t *testing.T, f *fixture) error {
			return f.w.Navigate(ctx(t), f.srv.URL)
		}},
	}
}

// TestRecoveryNextEvalWorks recovers a tab the way a user would, then
// evaluates at once, with no wait in between: the watcher must have seen
// the recovery by the time the recovering call returned.
func TestRecoveryNextEvalWorks(t *testing.T) {
	t.Parallel()
	for _, tt := range recoveryPaths() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fixture{srv: serve(t), b: testbrowser.Shared(t)}
			f.page = testbrowser.NewPage(t, f.b)
			require.NoError(t, navigate(t, f.page, f.srv.URL))
			f.w = watch(t, f.page, &tabguard.Options{EvalTimeout: 10 * time.Second})
			stale, cycles := 0, tt.cycles()
			for i := range cycles {
				tt.fault(t, f)
				f.waitBlocked(t, tt.reason) // the watcher saw the fault
				require.NoError(t, tt.recover(t, f), "cycle %d: recovery", i)
				res, err := f.w.Eval(testbrowser.Context(t, 20*time.Second), `() => 6 * 7`)
				if errors.Is(err, tt.reason) {
					stale++
					t.Logf("cycle %d: stale refusal: %v", i, err)
					continue
				}
				require.NoError(t, err, "cycle %d: eval after recovery", i)
				assert.Equal(t, 42, res.Value.Int())
			}
			assert.Zero(t, stale, "stale refusals in %d cycles", cycles)
		})
	}
}

// TestFailedNavigateShowsAtOnce is the other side of recovery: once
// Watcher.Navigate has returned a failed load, the next eval is refused with
// it, with no wait in between, even while Chrome's events about the failure
// are still on their way.
func TestFailedNavigateShowsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, &tabguard.Options{EvalTimeout: 10 * time.Second})
	late, cycles := 0, faultrows.RecoveryCycles()
	for i := range cycles {
		require.NoError(t, f.w.Navigate(testbrowser.Context(t, 10*time.Second), f.srv.URL), "cycle %d: navigate home", i)
		err := f.w.Navigate(testbrowser.Context(t, 10*time.Second), testbrowser.DeadURL(t))
		require.ErrorIs(t, err, tabguard.ErrNoDocument, "cycle %d", i)
		_, err = f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
		if !errors.Is(err, tabguard.ErrNoDocument) {
			late++
			t.Logf("cycle %d: the eval after the failed load got %v", i, err)
		}
	}
	assert.Zero(t, late, "evals that missed the failed load in %d cycles", cycles)
}
