package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tabguard/tabguard/internal/engine"
	"github.com/tabguard/tabguard/internal/enginetest"
	"github.com/tabguard/tabguard/tabstate"
)

// printParams stands for a typed action of chromedp, such as
// *page.PrintToPDFParams.
type printParams struct{}

// navigate stands for an action that a func of chromedp's makes, as
// chromedp.Navigate does.
func navigate() func() { return func() {} }

// TestStepName holds that a step is named by its place and its Go type,
// or, for a func, by the func that made it, without its import path and
// closure suffixes.
func TestStepName(t *testing.T) {
	got := []string{
		engine.StepName(3, 6, &printParams{}),
		engine.StepName(0, 2, navigate()),
		engine.StepName(1, 2, strings.ToUpper),
	}
	want := []string{
		"action 4 of 6, *engine_test.printParams",
		"action 1 of 2, engine.navigate",
		"action 2 of 2, strings.ToUpper",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StepName (-want +got):\n%s", diff)
	}
}

// TestTimeoutNamesTheStep holds that a guarded call of several steps that
// runs out of time names the step it was at, and the last method it sent,
// and that a refusal cutting it short names the step too; a call without
// steps names none.
func TestTimeoutNamesTheStep(t *testing.T) {
	fx := setup(t, enginetest.EventsFirst, engine.Config{EvalTimeout: 300 * time.Millisecond})
	steps := new(engine.Steps)
	err := fx.tab.DoAction(engine.WithSteps(deadline(t), steps), engine.OpGuard, func(ctx context.Context) error {
		steps.At(engine.StepName(1, 3, &printParams{}))
		steps.Sent("Page.printToPDF")
		return hang(ctx)
	})
	var te *tabstate.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "action 2 of 3, *engine_test.printParams, last sent Page.printToPDF", te.Step)
	assert.True(t, strings.HasPrefix(te.Error(),
		"guarded chromedp action (action 2 of 3, *engine_test.printParams, last sent Page.printToPDF) timed out after 300ms"), te.Error())

	err = fx.tab.DoAction(deadline(t), engine.OpGuard, hang)
	require.ErrorAs(t, err, &te)
	assert.Empty(t, te.Step, "a call with no steps names none")

	steps = new(engine.Steps)
	time.AfterFunc(20*time.Millisecond, func() { fx.f.Push(crash("crashed")...) })
	err = fx.tab.DoAction(engine.WithSteps(deadline(t), steps), engine.OpGuard, func(ctx context.Context) error {
		steps.At(engine.StepName(0, 2, navigate()))
		return hang(ctx)
	})
	var be *tabstate.BlockedError
	require.ErrorAs(t, err, &be)
	assert.ErrorIs(t, err, tabstate.ErrTabCrashed)
	assert.Equal(t, "action 1 of 2, engine.navigate", be.Step)
	assert.Contains(t, be.Error(), "(action 1 of 2, engine.navigate)")
}
