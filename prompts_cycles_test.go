package tabguard_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/faultrows"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestPromptRowsCycles runs each prompt row of the fault matrix
// faultrows.PromptCycles times on one tab: each time the row's answer, its
// recovery, and an eval at once after it, which must not be refused with
// the prompt's reason. A row whose recovery opens a new tab goes on in it.
func TestPromptRowsCycles(t *testing.T) {
	t.Parallel()
	faults := rodFaults()
	for _, row := range faultrows.Prompts() {
		t.Run(row.Name, func(t *testing.T) {
			rf, ok := faults[row.Fault()]
			require.True(t, ok, "no fault for the row")
			t.Parallel()
			cycles := faultrows.PromptCycles()
			if row.Want == tabguard.ErrCertificate {
				// Chrome answers a load of a certificate it refused before
				// about 3 s later, raw rod's as the watcher's: the time
				// goes by idle, holding one of the package's parallel
				// slots. TestRecoveryNextEvalWorks runs that path
				// faultrows.RecoveryCycles times.
				cycles = 2
			}
			f := rowFixture(t, row)
			stale := 0
			for i := range cycles {
				faultrows.Check(t, row, faultrows.Rod, rf.fault(t, f).shared())
				w := f.w
				if rf.recover != nil {
					w = rf.recover(t, f)
				}
				res, err := w.Eval(testbrowser.Context(t, 10*time.Second), `() => 6 * 7`)
				if row.Want != nil && errors.Is(err, row.Want) {
					stale++
					t.Logf("cycle %d: stale refusal: %v", i, err)
				} else if assert.NoError(t, err, "cycle %d: eval after recovery", i) {
					assert.Equal(t, 42, res.Value.Int())
				}
				if w != f.w { // a new tab: the next cycle runs there
					f.page = testbrowser.NewPage(t, f.b)
					if row.Path != "-" {
						require.NoError(t, navigate(t, f.page, f.srv.URL+row.Path))
					}
					f.w = watch(t, f.page, &tabguard.Options{EvalTimeout: row.Timeout()})
				}
			}
			assert.Zero(t, stale, "stale refusals in %d cycles", cycles)
		})
	}
}
