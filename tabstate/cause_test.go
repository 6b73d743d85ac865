package tabstate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/tabguard/tabguard/tabstate"
)

func TestDiagnose(t *testing.T) {
	t.Parallel()
	late, failed := context.DeadlineExceeded, errors.New("target closed")
	short := 200 * time.Millisecond // the window a 400 ms deadline leaves the probes
	tests := []struct {
		name   string
		probes tabstate.Probes
		want   tabstate.TimeoutCause
		err    bool
	}{
		{"all answer", tabstate.Probes{Visibility: "visible"}, tabstate.TimeoutUnsettled, false},
		{"hidden, timers run", tabstate.Probes{Visibility: "hidden"}, tabstate.TimeoutHidden, false},
		{"hidden, no timers", tabstate.Probes{Visibility: "hidden", Timer: late}, tabstate.TimeoutFrozen, false},
		{"hidden, timer probe failed", tabstate.Probes{Visibility: "hidden", Timer: failed}, tabstate.TimeoutUnsettled, false},
		{"main thread busy", tabstate.Probes{Evaluate: late, Timer: late}, tabstate.TimeoutBusyScript, false},
		{"renderer hung", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late}, tabstate.TimeoutHung, false},
		{"nothing answers", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Browser: late}, tabstate.TimeoutSilent, false},
		{"browser silent, interrupt answers", tabstate.Probes{Evaluate: late, Timer: late, Browser: late}, tabstate.TimeoutBusyScript, false},
		{"evaluate failed", tabstate.Probes{Evaluate: failed}, tabstate.TimeoutUnknown, true},
		{"interrupt failed", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: failed}, tabstate.TimeoutBusyScript, true},
		{"hidden, no timers yet", tabstate.Probes{Visibility: "hidden", Timer: late, Window: short, Due: time.Second}, tabstate.TimeoutHidden, false},
		{"hidden, no timers for long enough", tabstate.Probes{Visibility: "hidden", Timer: late, Window: time.Second, Due: time.Second}, tabstate.TimeoutFrozen, false},
		{"main thread busy, in a short window", tabstate.Probes{Evaluate: late, Timer: late, Window: short, Due: time.Second}, tabstate.TimeoutBusyScript, false},
		{"interrupt late, in a short window", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Window: short, Due: time.Second}, tabstate.TimeoutUnknown, false},
		{"nothing answers, in a short window", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Browser: late, Window: short, Due: time.Second}, tabstate.TimeoutUnknown, false},
		{"renderer hung, for long enough", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Window: 2 * time.Second, Due: time.Second}, tabstate.TimeoutHung, false},
		{"nothing answers, for long enough", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Browser: late, Window: time.Second, Due: time.Second}, tabstate.TimeoutSilent, false},
		{"navigating, page held, interrupt answers", tabstate.Probes{Evaluate: late, Timer: late, Navigating: true}, tabstate.TimeoutNavigating, false},
		{"navigating, page held, interrupt late", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Navigating: true}, tabstate.TimeoutNavigating, false},
		{"navigating, page held, in a short window", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Navigating: true, Window: short, Due: time.Second}, tabstate.TimeoutNavigating, false},
		{"navigating, interrupt failed", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: failed, Navigating: true}, tabstate.TimeoutNavigating, false},
		{"navigating, page answers", tabstate.Probes{Visibility: "visible", Navigating: true}, tabstate.TimeoutUnsettled, false},
		{"navigating, hidden page answers", tabstate.Probes{Visibility: "hidden", Timer: late, Navigating: true}, tabstate.TimeoutFrozen, false},
		{"navigating, evaluate failed", tabstate.Probes{Evaluate: failed, Navigating: true}, tabstate.TimeoutUnknown, true},
		{"navigating, browser late too", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Browser: late, Navigating: true}, tabstate.TimeoutSilent, false},
		{"navigating, browser late, in a short window", tabstate.Probes{Evaluate: late, Timer: late, Interrupt: late, Browser: late, Navigating: true, Window: short, Due: time.Second}, tabstate.TimeoutUnknown, false},
		{"navigating, browser failed", tabstate.Probes{Evaluate: late, Timer: late, Browser: failed, Navigating: true}, tabstate.TimeoutBusyScript, false},
	}
	for _, tt := range tests {
		got, err := tabstate.Diagnose(tt.probes)
		assert.Equal(t, tt.want, got, tt.name)
		assert.Equal(t, tt.err, err != nil, "%s: err %v", tt.name, err)
	}
}

func TestTimeoutErrorProblem(t *testing.T) {
	t.Parallel()
	url := "http://127.0.0.1:8080/"
	te := &tabstate.TimeoutError{Limit: 600 * time.Millisecond, Cause: tabstate.TimeoutHung,
		Doing: tabstate.TimeoutHung.Describe(url), Advice: "close the tab with Watcher.CloseTab and open a new one"}
	assert.Equal(t, "eval timed out after 600ms (renderer of page "+url+" answers nothing, not even an interrupt: "+
		"a JavaScript dialog opened before the watcher did, or the renderer hangs outside JavaScript, or it died and Chrome has not reported the crash yet)", te.Problem())
	assert.Equal(t, te.Problem()[:len(te.Problem())-1]+": close the tab with Watcher.CloseTab and open a new one)", te.Error())
	assert.ErrorIs(t, te, tabstate.ErrEvalTimeout)
	assert.ErrorIs(t, te, context.DeadlineExceeded)

	bare := &tabstate.TimeoutError{Op: "navigate to " + url, Limit: time.Second}
	assert.Equal(t, "navigate to "+url+" timed out after 1s", bare.Error())
	assert.Equal(t, bare.Error(), bare.Problem())
	assert.Equal(t, "TimeoutBusyScript", tabstate.TimeoutBusyScript.String())
	assert.Equal(t, "TimeoutCause(99)", tabstate.TimeoutCause(99).String())
	assert.Equal(t, "tab still loading", tabstate.TimeoutLoading.Describe(""))
	assert.Equal(t, "page "+url+" answers, but the DOM read never finished", tabstate.TimeoutUnsettled.DescribeCall(url, "DOM read"))
	assert.Equal(t, tabstate.TimeoutFrozen.Describe(url), tabstate.TimeoutFrozen.DescribeCall(url, "eval"))
	assert.Equal(t, tabstate.TimeoutHidden.Describe(url), tabstate.TimeoutHidden.DescribeCall(url, ""))
	assert.Equal(t, "TimeoutNavigating", tabstate.TimeoutNavigating.String())
	assert.Equal(t, "navigation to "+url+"never has not committed, and Chrome holds the page's calls until it does",
		tabstate.TimeoutNavigating.Describe(url+"never"))
	assert.Equal(t, tabstate.TimeoutNavigating.Describe(url), tabstate.TimeoutNavigating.DescribeCall(url, "DOM read"))
}

// TestTimeoutCauseValues holds the causes' numbers, which programs may
// keep: a new cause comes after the last.
func TestTimeoutCauseValues(t *testing.T) {
	t.Parallel()
	causes := []tabstate.TimeoutCause{tabstate.TimeoutUnknown, tabstate.TimeoutLoading, tabstate.TimeoutUnsettled,
		tabstate.TimeoutHidden, tabstate.TimeoutFrozen, tabstate.TimeoutBusyScript, tabstate.TimeoutHung,
		tabstate.TimeoutSilent, tabstate.TimeoutNavigating}
	for i, c := range causes {
		if int(c) != i {
			t.Errorf("%v = %d; want %d", c, int(c), i)
		}
	}
}

func TestRecoveryStoppedNavigation(t *testing.T) {
	t.Parallel()
	url := "http://127.0.0.1:8080/never"
	te := &tabstate.TimeoutError{Limit: time.Second, Cause: tabstate.TimeoutNavigating, Doing: tabstate.TimeoutNavigating.Describe(url)}
	r := tabstate.Recovery{Problem: te, Action: tabstate.StoppedNavigation}
	assert.Equal(t, "navigation to "+url+" has not committed, and Chrome holds the page's calls until it does: stopped the pending navigation", r.String())
}
