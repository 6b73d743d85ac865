package main

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard"
)

func TestToolError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"crash", &tabguard.BlockedError{Reason: tabguard.ErrTabCrashed, Detail: "oom"},
			"tab renderer crashed (reason: oom): call reload_tab"},
		{"dialog", fmt.Errorf("read: %w", &tabguard.BlockedError{Reason: tabguard.ErrDialogOpen, Detail: `alert "hi"`}),
			`tab has a JavaScript dialog open: alert "hi": call handle_dialog`},
		{"no dialog", tabguard.ErrNoDialog, "no JavaScript dialog is open: nothing to handle"},
		{"timeout, hung renderer", &tabguard.TimeoutError{Limit: time.Second, Cause: tabguard.TimeoutHung,
			Doing: "renderer of page http://x/ answers nothing", Advice: "close the tab with Watcher.CloseTab"},
			"eval timed out after 1s (renderer of page http://x/ answers nothing): call handle_dialog if a dialog is open; otherwise call close_tab and open_tab"},
		{"timeout, script stopped", &tabguard.TimeoutError{Limit: 5 * time.Second, Cause: tabguard.TimeoutBusyScript,
			Doing: "busy running script on committed page http://x/: script terminated, the tab answers again"},
			"eval timed out after 5s (busy running script on committed page http://x/: script terminated, the tab answers again): retry the call"},
		{"timeout, hidden page", &tabguard.TimeoutError{Limit: time.Second, Cause: tabguard.TimeoutHidden,
			Doing: "page http://x/ is hidden", Advice: "Page.bringToFront (proto.PageBringToFront) shows it"},
			"eval timed out after 1s (page http://x/ is hidden)"},
		{"other", errors.New("decode result: bad"), "decode result: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolError(tt.err)
			assert.EqualError(t, got, tt.want)
			assert.NotContains(t, got.Error(), "Watcher.", "a model has tools, not Go calls")
			assert.NotContains(t, got.Error(), "proto.")
		})
	}
	assert.NoError(t, toolError(nil))
}
