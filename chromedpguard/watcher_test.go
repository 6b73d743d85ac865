package chromedpguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/tabstate"
)

func TestEvalHealthy(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", nil)
	ctx := within(t, 10*time.Second)

	res, err := f.w.Eval(ctx, `(a, b) => a + b`, 1, 2)
	require.NoError(t, err)
	assert.Equal(t, "3", string(res.Value))

	title, err := chromedp.Run(f.tab, chromedpguard.Evaluate[string](f.w, `() => document.title`))
	require.NoError(t, err)
	assert.Equal(t, "ok", title)

	text, err := chromedp.Run(f.tab, chromedpguard.Guard(f.w, chromedp.Text(chromedp.CSS("p"))))
	require.NoError(t, err)
	assert.Equal(t, "héllo", text)

	_, err = f.w.Eval(ctx, `() => { throw new Error("boom") }`)
	var ee *chromedp.ExceptionError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "boom")

	_, err = f.w.Eval(ctx, "  ")
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument)
	assert.Nil(t, f.w.Blocked(ctx))
	s := f.w.State()
	assert.True(t, s.Committed && s.Loaded, "state %+v", s)
	assert.Equal(t, f.srv.URL+"/", s.URL)

	err = f.w.Do(ctx, func(context.Context) error { return nil })
	assert.ErrorIs(t, err, chromedpguard.ErrInvalidArgument, "Do wants the tab's context")
	err = f.w.Do(f.tab, func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`))
		return err
	})
	assert.NoError(t, err)
}

func TestCrash(t *testing.T) {
	t.Parallel()
	crashMsg := "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)"
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", nil)
		f.crash(t)
		_, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
		require.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
		assert.Equal(t, crashMsg, err.Error())
		assert.True(t, errors.Is(err, tabstate.ErrTabCrashed), "one identity across backends")

		require.NoError(t, f.w.Reload(within(t, 10*time.Second)))
		res, err := f.w.Eval(within(t, 10*time.Second), `() => 6 * 7`)
		require.NoError(t, err, "eval right after the reload")
		assert.Equal(t, "42", string(res.Value))
	})
	t.Run("in flight", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 20 * time.Second})
		// The eval's promise would settle in 15 s, its deadline is 20 s: the
		// crash error can only come from the crash cutting it short.
		wait := f.evalAsync(t, `() => new Promise(r => setTimeout(r, 15000))`)
		start := time.Now()
		f.crash(t)
		err, at := wait()
		require.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
		assert.Equal(t, crashMsg, err.Error())
		t.Logf("answered %v after the crash", at.Sub(start).Round(time.Millisecond))
	})
}

func TestDialog(t *testing.T) {
	t.Parallel()
	hint := "accept or dismiss it (Watcher.HandleDialog), or set Options.Dialogs"
	t.Run("alert opened by the eval", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", nil)
		_, err := f.w.Eval(within(t, 10*time.Second), `() => alert("hello from alert")`)
		require.ErrorIs(t, err, chromedpguard.ErrDialogOpen)
		assert.Equal(t, `tab has a JavaScript dialog open: alert "hello from alert": `+hint, err.Error())
		_, err = f.w.Eval(within(t, 10*time.Second), `() => 1`)
		require.ErrorIs(t, err, chromedpguard.ErrDialogOpen, "refused up front")

		require.NoError(t, f.w.HandleDialog(within(t, 10*time.Second), true, ""))
		_, err = f.w.Eval(within(t, 10*time.Second), `() => 1`)
		require.NoError(t, err, "eval right after HandleDialog")
		err = f.w.HandleDialog(within(t, 10*time.Second), true, "")
		require.ErrorIs(t, err, chromedpguard.ErrNoDialog)
	})
	t.Run("prompt answered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", nil)
		f.runJS(t, `setTimeout(() => { window.answer = prompt("your name?", "x") }, 0)`)
		eventually(t, "the prompt", func() bool { return f.w.State().DialogOpen })
		require.NoError(t, f.w.HandleDialog(within(t, 10*time.Second), true, "tabguard"))
		res, err := f.w.Eval(within(t, 10*time.Second), `() => window.answer`)
		require.NoError(t, err)
		assert.Equal(t, `"tabguard"`, string(res.Value))
	})
	t.Run("policy accepts", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "/", &chromedpguard.Options{Dialogs: chromedpguard.DialogAccept})
		res, err := f.w.Eval(within(t, 10*time.Second), `() => confirm("sure?")`)
		require.NoError(t, err, "the eval goes on")
		assert.Equal(t, "true", string(res.Value))
	})
	t.Run("opened before Watch, policy dismisses", func(t *testing.T) {
		t.Parallel()
		srv := serve(t)
		tab := newTab(t, sharedBrowser)
		ctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL)))
		go func() {
			_, _ = chromedp.Run(tab, chromedp.Evaluate[chromedp.Void](`setTimeout(() => confirm("early"), 0)`))
		}()
		time.Sleep(300 * time.Millisecond)
		w := watch(t, tab, &chromedpguard.Options{Dialogs: chromedpguard.DialogDismiss})
		res, err := w.Eval(within(t, 10*time.Second), `() => 1`)
		require.NoError(t, err)
		assert.Equal(t, "1", string(res.Value))
	})
}

func TestTabClosed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: 20 * time.Second})
	wait := f.evalAsync(t, `() => new Promise(() => {})`)
	start := time.Now()
	_, err := chromedp.CallBrowser(within(t, 5*time.Second), target.CloseTarget, target.CloseTargetParams{TargetID: f.w.TargetID()})
	require.Error(t, err, "CallBrowser needs a chromedp context")
	_, err = chromedp.CallBrowser(f.browser, target.CloseTarget, target.CloseTargetParams{TargetID: f.w.TargetID()})
	require.NoError(t, err)
	err, at := wait()
	require.ErrorIs(t, err, chromedpguard.ErrTabClosed, "the eval in flight")
	t.Logf("answered %v after the close", at.Sub(start).Round(time.Millisecond))
	_, err = f.w.Eval(within(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrTabClosed)
	assert.Equal(t, "tab is closed: open a new tab", err.Error())
}

func TestBrowserKilled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dedicated(t), "/", &chromedpguard.Options{EvalTimeout: 20 * time.Second})
	wait := f.evalAsync(t, `() => new Promise(() => {})`)
	start := time.Now()
	require.NoError(t, chromedp.FromContext(f.browser).Browser.Process().Kill())
	err, at := wait()
	require.ErrorIs(t, err, chromedpguard.ErrBrowserGone, "the eval in flight")
	t.Logf("answered %v after the kill", at.Sub(start).Round(time.Millisecond))
	_, err = f.w.Eval(within(t, 5*time.Second), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrBrowserGone)
	assert.Regexp(t, `^browser is gone \(.+\): reconnect to or relaunch the browser$`, err.Error())
	t.Log(err)
}
