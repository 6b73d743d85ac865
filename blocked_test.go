package tabguard_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
)

func TestEvalBlockedReason(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:40123/"
	tests := []struct {
		name    string
		state   tabguard.TabState
		want    *tabguard.BlockedError // nil: not refused
		wantMsg string
	}{
		{name: "zero state is a first load", state: tabguard.TabState{}},
		{name: "first load pending", state: tabguard.TabState{URL: url}},
		{name: "healthy", state: tabguard.TabState{URL: url, Committed: true}},
		{
			name:    "crashed",
			state:   tabguard.TabState{URL: url, Committed: true, Crashed: true, CrashReason: "oom"},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, URL: url, Detail: "oom"},
			wantMsg: "tab renderer crashed (reason: oom): reload the tab (Watcher.Reload)",
		},
		{
			name:    "crashed, reason unknown",
			state:   tabguard.TabState{Crashed: true},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed},
			wantMsg: "tab renderer crashed: reload the tab (Watcher.Reload)",
		},
		{
			name:    "crash beats a load error",
			state:   tabguard.TabState{URL: url, Crashed: true, CrashReason: "crashed", LoadError: "net::ERR_FAILED"},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, URL: url, Detail: "crashed"},
			wantMsg: "tab renderer crashed (reason: crashed): reload the tab (Watcher.Reload)",
		},
		{
			name:    "load error",
			state:   tabguard.TabState{URL: url, LoadError: "net::ERR_CONNECTION_REFUSED"},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrNoDocument, URL: url, Detail: "net::ERR_CONNECTION_REFUSED"},
			wantMsg: "tab has no document: net::ERR_CONNECTION_REFUSED loading " + url + ": navigate again (Watcher.Navigate)",
		},
		{
			name:    "load error while the old page is still committed",
			state:   tabguard.TabState{URL: url, Committed: true, LoadError: "net::ERR_NAME_NOT_RESOLVED"},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrNoDocument, URL: url, Detail: "net::ERR_NAME_NOT_RESOLVED"},
			wantMsg: "tab has no document: net::ERR_NAME_NOT_RESOLVED loading " + url + ": navigate again (Watcher.Navigate)",
		},
		{
			name:    "error page without a known error",
			state:   tabguard.TabState{URL: url, ErrorPage: true},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrNoDocument, URL: url, Detail: "error page"},
			wantMsg: "tab has no document: error page loading " + url + ": navigate again (Watcher.Navigate)",
		},
		{
			// As a TabState filled from another backend's events may say it:
			// the frame's URL is Chrome's error page, and nothing else is set.
			name:    "error page URL alone",
			state:   tabguard.TabState{URL: "chrome-error://chromewebdata/", Committed: true},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrNoDocument, URL: "chrome-error://chromewebdata/", Detail: "error page"},
			wantMsg: "tab has no document: error page loading chrome-error://chromewebdata/: navigate again (Watcher.Navigate)",
		},
		{
			name:    "closed beats crashed",
			state:   tabguard.TabState{URL: url, Crashed: true, Closed: true},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrTabClosed, URL: url},
			wantMsg: "tab is closed: open a new tab",
		},
		{
			name:    "browser gone beats all",
			state:   tabguard.TabState{URL: url, Crashed: true, Closed: true, BrowserGone: true, LoadError: "net::ERR_FAILED"},
			want:    &tabguard.BlockedError{Reason: tabguard.ErrBrowserGone, URL: url},
			wantMsg: "browser is gone: reconnect to or relaunch the browser",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tabguard.EvalBlockedReason(tt.state)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var got *tabguard.BlockedError
			require.ErrorAs(t, err, &got)
			if diff := cmp.Diff(*tt.want, *got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("EvalBlockedReason() mismatch (-want +got):\n%s", diff)
			}
			assert.ErrorIs(t, err, tt.want.Reason)
			assert.Equal(t, tt.wantMsg, err.Error())
		})
	}
}

func TestBlockedErrorWithoutReason(t *testing.T) {
	t.Parallel()
	err := &tabguard.BlockedError{Detail: "custom"}
	assert.Equal(t, "eval blocked: custom", err.Error())
	assert.NoError(t, errors.Unwrap(err))
}
