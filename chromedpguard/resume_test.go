package chromedpguard_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/chromedpguard"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/tracerec"
)

// cutReason is the reason of a connection the proxy cut: the end of the
// stream, or a reset when bytes were under way.
const cutReason = "connection (closed without a close frame|reset)"

// resumeFixture is a pool fixture whose watcher reports its resumes.
func resumeFixture(t *testing.T, copts *chromedpguard.ConnectOptions) (*poolFixture, *tracerec.Resumes) {
	t.Helper()
	r, tr := tracerec.NewResumes()
	return newPoolFixtureWith(t, &chromedpguard.Options{EvalTimeout: time.Minute, Trace: tr}, copts, nil), r
}

// direct is the fixture's tab on a connection of its own, straight to the
// browser, to change it while the watched connection is down.
func (f *poolFixture) direct(t *testing.T) context.Context {
	t.Helper()
	actx, cancelAlloc := chromedpguard.NewRemoteAllocatorWith(context.Background(), f.remote.wsURL, &chromedpguard.ConnectOptions{Resume: -1})
	t.Cleanup(cancelAlloc)
	tab, cancel := chromedp.NewContext(actx, chromedp.WithTargetID(chromedp.FromContext(f.tab).Target.TargetID),
		chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(tab))
	return tab
}

// A cut connection resumes: the next eval answers, on the watcher and on
// chromedp's own context, with one dial more.
func TestResumeIdle(t *testing.T) {
	t.Parallel()
	f, r := resumeFixture(t, nil)
	for i := range 3 {
		before := f.proxy.Accepted()
		f.proxy.CutAll()
		assert.Regexp(t, cutReason, r.Wait(t, r.Dropped, "drop"))
		r.Wait(t, r.Resumed, "resume")
		assert.Equal(t, before+1, f.proxy.Accepted(), "resume %d: one dial", i)
		res, err := f.w.Eval(within(t, 10*time.Second), `() => 6 * 7`)
		require.NoError(t, err, "resume %d: the watcher's eval", i)
		assert.Equal(t, "42", string(res.Value))
		ctx, cancel := context.WithTimeout(f.tab, 10*time.Second)
		title, err := chromedp.Run(ctx, chromedp.Title())
		cancel()
		require.NoError(t, err, "resume %d: chromedp's own call", i)
		assert.Equal(t, "ok", title)
	}
}

// A call in flight at the drop answers ErrConnectionDropped, saying the
// connection was resumed; the next call answers.
func TestResumeInFlight(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, reason string
		fault        func(*faultproxy.Proxy)
	}{
		{"cut", cutReason, (*faultproxy.Proxy).CutAll},
		{"reset", "connection reset", (*faultproxy.Proxy).ResetAll},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, r := resumeFixture(t, nil)
			done := make(chan error, 1)
			go func() {
				_, err := f.w.Eval(within(t, time.Minute), `() => new Promise(() => {})`)
				done <- err
			}()
			time.Sleep(300 * time.Millisecond) // let it reach the page
			start := time.Now()
			tt.fault(f.proxy)
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the eval in flight did not answer within 30s")
			}
			answered := time.Since(start)
			require.ErrorIs(t, err, chromedpguard.ErrConnectionDropped)
			assert.NotErrorIs(t, err, chromedpguard.ErrBrowserGone)
			assert.Regexp(t, `connection to the browser dropped \(`+tt.reason+"; resumed after ", err.Error())
			r.Wait(t, r.Resumed, "resume")
			res, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
			require.NoError(t, err)
			assert.Equal(t, "1", string(res.Value))
			t.Logf("in flight answered %v after the fault; the next eval %v", answered, time.Since(start))
		})
	}
}

// What happened to a tab while the connection was down is told after the
// resume: a crash, a close, a navigation.
func TestResumeAfterGap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		gap   func(t *testing.T, direct context.Context, url string)
		check func(t *testing.T, f *poolFixture, url string)
	}{
		{"crashed", func(t *testing.T, direct context.Context, _ string) {
			ctx, cancel := context.WithTimeout(direct, time.Second)
			defer cancel()
			_, _ = chromedp.Call(ctx, page.Crash, cdp.Empty{}) // Chrome never answers it
		}, func(t *testing.T, f *poolFixture, _ string) {
			_, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
			require.ErrorIs(t, err, chromedpguard.ErrTabCrashed)
		}},
		{"closed", func(t *testing.T, direct context.Context, _ string) {
			ctx, cancel := context.WithTimeout(direct, 10*time.Second)
			defer cancel()
			_, err := chromedp.CallBrowser(ctx, target.CloseTarget,
				target.CloseTargetParams{TargetID: chromedp.FromContext(ctx).Target.TargetID})
			require.NoError(t, err)
		}, func(t *testing.T, f *poolFixture, _ string) {
			_, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
			require.ErrorIs(t, err, chromedpguard.ErrTabClosed)
		}},
		{"navigated", func(t *testing.T, direct context.Context, url string) {
			ctx, cancel := context.WithTimeout(direct, 10*time.Second)
			defer cancel()
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
		}, func(t *testing.T, f *poolFixture, url string) {
			s, err := f.w.Wait(within(t, 10*time.Second), func(s chromedpguard.TabState) bool { return s.URL == url })
			require.NoError(t, err, "the watcher learns the new URL")
			assert.True(t, s.Committed)
			res, err := f.w.Eval(within(t, 10*time.Second), `() => location.href`)
			require.NoError(t, err)
			assert.Equal(t, `"`+url+`"`, string(res.Value))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, r := resumeFixture(t, nil)
			direct := f.direct(t)
			url := serve(t).URL + "/other"
			f.proxy.Refuse(true)
			f.proxy.CutAll()
			r.Wait(t, r.Dropped, "drop")
			tt.gap(t, direct, url)
			f.proxy.Refuse(false)
			r.Wait(t, r.Resumed, "resume")
			tt.check(t, f, url)
		})
	}
}

// A browser that does not come back within the resume window is gone,
// with the reason of the last try.
func TestResumeGivesUp(t *testing.T) {
	t.Parallel()
	f, r := resumeFixture(t, &chromedpguard.ConnectOptions{Resume: time.Second})
	f.proxy.Refuse(true)
	f.proxy.CutAll()
	r.Wait(t, r.Dropped, "drop")
	_, err := f.w.Eval(within(t, 10*time.Second), `() => 1`)
	require.ErrorIs(t, err, chromedpguard.ErrBrowserGone)
	assert.Regexp(t, cutReason+"; not resumed within 1s \\(", err.Error())
	assert.Greater(t, f.proxy.Accepted(), 2, "it dialed again")
}
