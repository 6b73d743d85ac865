package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
)

// TestOneDeadlineForAJob gives a whole job one deadline, on a page whose
// script holds the renderer: it ends at that deadline with the guard's
// timeout naming the call and what the tab was doing.
func TestOneDeadlineForAJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", &chromedpguard.Options{EvalTimeout: time.Minute})
	const budget = 1500 * time.Millisecond
	job, cancel := context.WithTimeout(within(t, 30*time.Second), budget)
	defer cancel()
	_, err := f.w.Eval(job, `() => { setTimeout(() => { while (true) {} }, 0); return 1 }`)
	require.NoError(t, err)
	var te *chromedpguard.TimeoutError
	_, err = f.w.Eval(job, `() => document.title`)
	require.ErrorAs(t, err, &te, "the job's deadline ends the eval with the guard's timeout: %v", err)
	assert.Equal(t, chromedpguard.TimeoutBusyScript, te.Cause)
	assert.LessOrEqual(t, te.Limit, budget)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = f.w.Screenshot(job, false, 0)
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "screenshot timed out")
}

// TestDialogWaitWithOwnHandler: a program's own Listen func answers the
// page's dialogs; under DialogWait a call the alert interrupts goes on.
func TestDialogWaitWithOwnHandler(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, "/", &chromedpguard.Options{Dialogs: chromedpguard.DialogWait})
	tab := f.tab
	require.NoError(t, chromedp.Listen(tab, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go func() { // off the Listen goroutine (chromedp #984)
				_, _ = chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}()
		}
	}))
	res, err := f.w.Eval(within(t, 10*time.Second), `() => { alert("hi"); return "after" }`)
	require.NoError(t, err, "the program's handler answered the dialog")
	assert.Equal(t, `"after"`, string(res.Value))
}
