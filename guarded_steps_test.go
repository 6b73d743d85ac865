package tabguard_test

import (
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard"
	"github.com/tabguard/tabguard/internal/testbrowser"
)

// TestDoNamesTheLastMethod holds that a Do on a browser from Connect, whose
// transport is the package's own, names in its timeout the last CDP method
// its fn sent, so a program can tell which of its calls hung.
func TestDoNamesTheLastMethod(t *testing.T) {
	t.Parallel()
	f := newPoolFixture(t, &tabguard.Options{EvalTimeout: 3 * time.Second}, nil)
	err := f.w.Do(testbrowser.Context(t, 20*time.Second), func(p *rod.Page) error {
		if _, err := (proto.PageGetNavigationHistory{}).Call(p); err != nil {
			return err
		}
		_, err := proto.RuntimeEvaluate{Expression: `new Promise(() => {})`, AwaitPromise: true}.Call(p)
		return err
	})
	var te *tabguard.TimeoutError
	require.ErrorAs(t, err, &te, "%v", err)
	assert.Equal(t, "last sent Runtime.evaluate", te.Step)
	assert.Contains(t, te.Error(), "guarded call (last sent Runtime.evaluate) timed out after 3s")
}
