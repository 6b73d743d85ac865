package chromedpguard_test

import (
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

func TestTimeoutMessages(t *testing.T) {
	t.Parallel()
	const timeout = 600 * time.Millisecond
	tests := []struct {
		name      string
		path      string
		terminate bool
		js        string
		cause     chromedpguard.TimeoutCause
		msg       []string
		after     error // what the next eval gives: nil, or ErrEvalTimeout while a loop holds the tab
	}{
		{"while(true)", "/", false, `() => { while (true) {} }`, chromedpguard.TimeoutBusyScript,
			[]string{"eval timed out after 600ms (busy running script on committed page http://127.0.0.1:",
				"set Options.TerminateOnTimeout or call Runtime.terminateExecution (runtime.TerminateExecution)"},
			chromedpguard.ErrEvalTimeout},
		{"while(true) with TerminateOnTimeout", "/", true, `() => { while (true) {} }`, chromedpguard.TimeoutBusyScript,
			[]string{"busy running script on committed page", "terminat"}, nil},
		{"promise never settles", "/", false, `() => new Promise(() => {})`, chromedpguard.TimeoutUnsettled,
			[]string{"answers, but the eval's promise never settled"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A loop holds its renderer's main thread, which Chrome may share
			// among same-site tabs of a browser: it gets a browser of its own.
			f := newFixture(t, dedicated(t), tt.path, &chromedpguard.Options{EvalTimeout: timeout, TerminateOnTimeout: tt.terminate})
			start := time.Now()
			_, err := f.w.Eval(within(t, 10*time.Second), tt.js)
			elapsed := time.Since(start)
			t.Logf("%v in %v", err, elapsed.Round(time.Millisecond))
			require.ErrorIs(t, err, chromedpguard.ErrEvalTimeout)
			var te *chromedpguard.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, timeout, te.Limit, "the eval's own deadline, not the test's")
			assert.Equal(t, tt.cause, te.Cause)
			for _, m := range tt.msg {
				assert.Contains(t, err.Error(), m)
			}
			_, err = f.w.Eval(within(t, 10*time.Second), `() => 1`)
			if tt.after == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.after)
				_, err := chromedp.Call(f.tabWithin(t, 5*time.Second), runtime.TerminateExecution, cdp.Empty{})
				require.NoError(t, err, "Runtime.terminateExecution ends the loop")
				_, err = f.w.Eval(within(t, 10*time.Second), `() => 1`)
				require.NoError(t, err)
			}
		})
	}
	t.Run("first load never answers", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil, "-", &chromedpguard.Options{EvalTimeout: 2 * time.Second})
		// Page.navigate itself, which leaves the load pending when it gives up
		// (Watcher.Navigate would stop it).
		nctx := f.tabWithin(t, 10*time.Second)
		go func() { _, _ = chromedp.Call(nctx, page.Navigate, page.NavigateParams{URL: f.srv.URL + "/stall"}) }()
		eventually(t, "the load to start", func() bool { return f.w.State().URL == f.srv.URL+"/stall" })
		_, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
		require.ErrorIs(t, err, chromedpguard.ErrEvalTimeout)
		assert.Contains(t, err.Error(), "eval timed out after 2s (tab still loading "+f.srv.URL+"/stall)")
		var te *chromedpguard.TimeoutError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, chromedpguard.TimeoutLoading, te.Cause)
	})
}
