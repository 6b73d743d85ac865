package tabguard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultproxy"
	"github.com/tabguard/tabguard/internal/testbrowser"
	"github.com/tabguard/tabguard/internal/tracerec"
)

// cutReason is the reason of a connection the proxy cut: the end of the
// stream, or a reset when bytes were under way.
const cutReason = "connection (closed without a close frame|reset)"

// resumeFixture is a pool fixture whose watcher reports its resumes, with
// a second connection straight to the browser, to change the tab while
// the watched connection is down.
func resumeFixture(t *testing.T, copts *tabguard.ConnectOptions) (*poolFixture, *tracerec.Resumes, *rod.Page) {
	t.Helper()
	r, tr := tracerec.NewResumes()
	f := newPoolFixtureWith(t, &tabguard.Options{EvalTimeout: time.Minute, Trace: tr}, copts, nil)
	direct := rod.New().ControlURL(f.remote.wsURL)
	require.NoError(t, direct.Connect())
	t.Cleanup(func() { _ = direct.Close() })
	page, err := direct.PageFromTarget(f.page.TargetID)
	require.NoError(t, err)
	return f, r, page
}

// A cut connection resumes: the next eval answers, on the watcher and on
// the program's own rod page, with one dial more.
func TestResumeIdle(t *testing.T) {
	t.Parallel()
	f, r, _ := resumeFixture(t, nil)
	for i := range 3 {
		before := f.proxy.Accepted()
		f.proxy.CutAll()
		assert.Regexp(t, cutReason, r.Wait(t, r.Dropped, "drop"))
		r.Wait(t, r.Resumed, "resume")
		assert.Equal(t, before+1, f.proxy.Accepted(), "resume %d: one dial", i)
		v, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 6 * 7`)
		require.NoError(t, err, "resume %d: the watcher's eval", i)
		assert.Equal(t, 42, v.Value.Int())
		own, err := f.page.Timeout(10 * time.Second).Eval(`() => document.title`)
		require.NoError(t, err, "resume %d: the program's own rod page", i)
		assert.Equal(t, "ok", own.Value.Str())
		assert.False(t, f.w.State().BrowserGone)
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
			f, r, _ := resumeFixture(t, nil)
			wait := f.inFlight(t)
			start := time.Now()
			tt.fault(f.proxy)
			at, err := wait()
			require.ErrorIs(t, err, tabguard.ErrConnectionDropped)
			assert.NotErrorIs(t, err, tabguard.ErrBrowserGone)
			assert.Regexp(t, `connection to the browser dropped \(`+tt.reason+"; resumed after ", err.Error())
			r.Wait(t, r.Resumed, "resume")
			v, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
			require.NoError(t, err)
			assert.Equal(t, 1, v.Value.Int())
			t.Logf("in flight answered %v after the fault; the next eval %v", at.Sub(start), time.Since(start))
		})
	}
}

// A pool that closes idle connections: the watcher's connection resumes
// each time, and an eval after a long idle answers.
func TestResumeReaped(t *testing.T) {
	t.Parallel()
	f, r, _ := resumeFixture(t, nil)
	f.proxy.ReapIdle(time.Second)
	r.Wait(t, r.Resumed, "resume after the reap")
	v, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	if errors.Is(err, tabguard.ErrConnectionDropped) {
		// Reaped again as the eval went out: it says so, and may be sent again.
		v, err = f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
	}
	require.NoError(t, err)
	assert.Equal(t, 1, v.Value.Int())
}

// What happened to a tab while the connection was down is told after the
// resume: a crash, a close, a navigation.
func TestResumeAfterGap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		gap   func(t *testing.T, direct *rod.Page, url string)
		check func(t *testing.T, f *poolFixture, url string)
	}{
		{"crashed", func(t *testing.T, direct *rod.Page, _ string) {
			p := direct.Timeout(10 * time.Second)
			crashed := p.WaitEvent(&proto.InspectorTargetCrashed{})
			_ = proto.PageCrash{}.Call(direct.Timeout(time.Second)) // Chrome never answers it
			crashed()
		}, func(t *testing.T, f *poolFixture, _ string) {
			_, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrTabCrashed)
		}},
		{"closed", func(t *testing.T, direct *rod.Page, _ string) {
			require.NoError(t, direct.Close())
		}, func(t *testing.T, f *poolFixture, _ string) {
			_, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => 1`)
			require.ErrorIs(t, err, tabguard.ErrTabClosed)
		}},
		{"navigated", func(t *testing.T, direct *rod.Page, url string) {
			require.NoError(t, direct.Timeout(10*time.Second).Navigate(url))
			require.NoError(t, direct.Timeout(10*time.Second).WaitLoad())
		}, func(t *testing.T, f *poolFixture, url string) {
			s, err := f.w.Wait(testbrowser.Context(t, 10*time.Second), func(s tabguard.TabState) bool { return s.URL == url })
			require.NoError(t, err, "the watcher learns the new URL")
			assert.True(t, s.Committed)
			v, err := f.w.Eval(testbrowser.Context(t, 10*time.Second), `() => location.href`)
			require.NoError(t, err)
			assert.Equal(t, url, v.Value.Str())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, r, direct := resumeFixture(t, nil)
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
// with the reason of the last try, and the call in flight says so.
func TestResumeGivesUp(t *testing.T) {
	t.Parallel()
	f, r, _ := resumeFixture(t, &tabguard.ConnectOptions{Resume: time.Second})
	wait := f.inFlight(t)
	f.proxy.Refuse(true)
	f.proxy.CutAll()
	r.Wait(t, r.Dropped, "drop")
	_, err := wait()
	require.ErrorIs(t, err, tabguard.ErrBrowserGone)
	assert.Regexp(t, cutReason+"; not resumed within 1s \\(", err.Error())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = f.w.Eval(ctx, `() => 1`)
	require.ErrorIs(t, err, tabguard.ErrBrowserGone)
	assert.Greater(t, f.proxy.Accepted(), 2, "it dialed again")
}

// Resume off: a cut is the browser's loss, as before.
func TestResumeOff(t *testing.T) {
	t.Parallel()
	f, _, _ := resumeFixture(t, &tabguard.ConnectOptions{Resume: -1})
	wait := f.inFlight(t)
	f.proxy.CutAll()
	_, err := wait()
	require.ErrorIs(t, err, tabguard.ErrBrowserGone)
	assert.Equal(t, 1, f.proxy.Accepted(), "no dial again")
}
