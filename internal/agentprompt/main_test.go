package agentprompt_test

import (
	"testing"

	"github.com/tabguard/tabguard/internal/testbrowser"
	"go.uber.org/goleak"
)

// closingM ends the shared browser after the tests and before goleak looks
// for leaked goroutines, so rod's connection goroutines are not counted.
type closingM struct{ m *testing.M }

func (c closingM) Run() int {
	defer testbrowser.CloseShared()
	return c.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(closingM{m}) }
